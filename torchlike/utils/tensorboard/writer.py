"""SummaryWriter: PyTorch's torch.utils.tensorboard.SummaryWriter, writing through tensorboardX.

Event files are written by tensorboardX's FileWriter (record framing, CRC, the asynchronous queue with
``max_queue`` / ``flush_secs``); the summaries are PyTorch's (see _summary.py), so TensorBoard shows a
torchlike run exactly as it shows the same run under PyTorch (compat_tests/test_tensorboard.py reads both
back and compares them value by value).
"""
import itertools
import os
import time

from tensorboardX import FileWriter as _TBXFileWriter
from tensorboardX.proto.event_pb2 import Event, SessionLog

from . import _embedding, _summary
from ._convert import make_np

__all__ = ['FileWriter', 'SummaryWriter']

_file_ids = itertools.count()


class FileWriter(_TBXFileWriter):
    """Writes Event protobufs to an event file in ``log_dir`` (tensorboardX's writer, torch's signature)."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=''):
        # tensorboardX names the file events.out.tfevents.<time>.<host><suffix>, so two writers opened in one
        # second in one folder (add_hparams, a writer used again after close()) would write the same file;
        # adding the process id and a per-process counter gives torch's (tensorboard's) unique file name.
        unique = f'.{os.getpid()}.{next(_file_ids)}'
        super().__init__(str(log_dir), max_queue, flush_secs, unique + filename_suffix)

    def flush(self):
        """Write every event added so far, then flush the file. torch's flush blocks until the queue is
        written; tensorboardX's only flushes the file, so events still queued for its writer thread would be
        missed. Stopping the thread makes it write the queue first (it reads the stop signal after them);
        a new thread then serves later events (tensorboardX 2.6's EventFileWriter internals)."""
        from tensorboardX.event_file_writer import _EventLoggerThread
        ew = self.event_writer
        if ew._closed:
            return
        ew._worker.stop()
        ew._ev_writer.flush()
        ew._worker = _EventLoggerThread(ew._event_queue, ew._ev_writer, ew._flush_secs)
        ew._worker.start()

    def close(self):
        self.flush()
        self.event_writer.close()

    def add_graph(self, graph_def, walltime=None):
        """Write a GraphDef. torch also writes a RunMetadata whose step stats name only the device
        ("/device:CPU:0"), which TensorBoard shows as no profile; torchlike writes none."""
        self.add_event(Event(graph_def=graph_def.SerializeToString()), None, walltime)


def _default_bins():
    # TensorFlow's histogram bucket limits: +-1e-12 * 1.1**k up to 1e20, and 0 (torch's "tensorflow" bins)
    v, pos, neg = 1e-12, [], []
    while v < 1e20:
        pos.append(v)
        neg.append(-v)
        v *= 1.1
    return neg[::-1] + [0] + pos


class SummaryWriter:
    """Writes entries directly to event files in ``log_dir`` to be consumed by TensorBoard.

    Args:
        log_dir (str): Save directory location. Default is runs/**CURRENT_DATETIME_HOSTNAME**.
        comment (str): Suffix appended to the default ``log_dir``; no effect if ``log_dir`` is given.
        purge_step (int): Events of a crashed run at steps >= purge_step are hidden by TensorBoard.
        max_queue (int): Pending events and summaries before an 'add' call forces a flush. Default 10.
        flush_secs (int): How often, in seconds, pending events are flushed to disk. Default 120.
        filename_suffix (str): Suffix added to all event filenames in the log_dir directory.
    """

    def __init__(self, log_dir=None, comment='', purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=''):
        if not log_dir:
            import socket
            from datetime import datetime
            current_time = datetime.now().strftime('%b%d_%H-%M-%S')
            log_dir = os.path.join('runs', current_time + '_' + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _get_file_writer(self):
        """The main FileWriter, (re)created after close() as in torch."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # a file_version event at purge_step then a START session log: TensorBoard drops later steps
                self.file_writer.add_event(Event(step=self.purge_step, file_version='brain.Event:2'))
                self.file_writer.add_event(Event(step=self.purge_step,
                                                 session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    # ---- scalars ------------------------------------------------------------------------------

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        summary = _summary.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each series goes to its own run, ``<log_dir>/<main_tag>_<tag>``, as in torch."""
        walltime = time.time() if walltime is None else walltime
        fw_logdir = self._get_file_writer().get_logdir()
        for tag, scalar_value in tag_scalar_dict.items():
            fw_tag = fw_logdir + '/' + main_tag.replace('/', '_') + '_' + tag
            fw = self.all_writers.get(fw_tag)
            if fw is None:
                fw = FileWriter(fw_tag, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[fw_tag] = fw
            fw.add_summary(_summary.scalar(main_tag, scalar_value), global_step, walltime)

    # ---- distributions ------------------------------------------------------------------------

    def add_histogram(self, tag, values, global_step=None, bins='tensorflow', walltime=None, max_bins=None):
        if isinstance(bins, str) and bins == 'tensorflow':
            bins = self.default_bins
        self._get_file_writer().add_summary(_summary.histogram(tag, values, bins, max_bins=max_bins),
                                            global_step, walltime)

    def add_histogram_raw(self, tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,
                          global_step=None, walltime=None):
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError('len(bucket_limits) != len(bucket_counts), see the document.')
        self._get_file_writer().add_summary(
            _summary.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts),
            global_step, walltime)

    # ---- images -------------------------------------------------------------------------------

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats='CHW'):
        self._get_file_writer().add_summary(_summary.image(tag, img_tensor, dataformats=dataformats),
                                            global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats='NCHW'):
        self._get_file_writer().add_summary(_summary.image(tag, img_tensor, dataformats=dataformats),
                                            global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """Render a matplotlib figure (or a list of them, as a grid) into an image summary."""
        from tensorboardX.utils import figure_to_image
        fmt = 'NCHW' if isinstance(figure, list) else 'CHW'
        self.add_image(tag, figure_to_image(figure, close), global_step, walltime, dataformats=fmt)

    # ---- text, hparams ------------------------------------------------------------------------

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._get_file_writer().add_summary(_summary.text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        """Hyper-parameters and their metrics, in a run ``<log_dir>/<run_name>`` (default: the time)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError('hparam_dict and metric_dict should be dictionary.')
        exp, ssi, sei = _summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        if not run_name:
            run_name = str(time.time())
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=logdir) as w_hp:
            w_hp.file_writer.add_summary(exp, global_step)
            w_hp.file_writer.add_summary(ssi, global_step)
            w_hp.file_writer.add_summary(sei, global_step)
            for k, v in metric_dict.items():
                w_hp.add_scalar(k, v, global_step)

    # ---- graph --------------------------------------------------------------------------------

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """The op graph of one call ``model(*input_to_model)``, recorded by torchlike's dispatcher
        (torch traces it with torch.jit; see _graph.py for what differs)."""
        from ._graph import graph
        self._get_file_writer().add_graph(graph(model, input_to_model, verbose, use_strict_trace))

    # ---- embeddings, pr curves ----------------------------------------------------------------

    @staticmethod
    def _encode(rawstr):
        # the tag becomes a folder name: escape what a path cannot hold
        return rawstr.replace('%', f"%{ord('%'):02x}").replace('/', f"%{ord('/'):02x}") \
            .replace('\\', f"%{ord(chr(92)):02x}")

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag='default',
                      metadata_header=None):
        """Write the projector's tensors.tsv (+ metadata.tsv, sprite.png) under ``<step>/<tag>`` and list
        the embedding in projector_config.pbtxt."""
        mat = make_np(mat)
        if global_step is None:
            global_step = 0
        subdir = f'{str(global_step).zfill(5)}/{self._encode(tag)}'
        logdir = self._get_file_writer().get_logdir()
        save_path = os.path.join(logdir, subdir)
        if os.path.exists(save_path):
            if os.path.isdir(save_path):
                print('warning: Embedding dir exists, did you set global_step for add_embedding()?')
            else:
                raise NotADirectoryError(f'Path: `{save_path}` exists, but is a file. Cannot proceed.')
        else:
            os.makedirs(save_path)
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError('#labels should equal with #data points')
            _embedding.make_tsv(metadata, save_path, metadata_header=metadata_header)
        if label_img is not None:
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError('#images should equal with #data points')
            _embedding.make_sprite(label_img, save_path)
        if mat.ndim != 2:
            raise AssertionError('mat should be 2D, where mat.size(0) is the number of data points')
        _embedding.make_mat(mat, save_path)
        if not hasattr(self, '_projector_infos'):
            self._projector_infos = []
        self._projector_infos.append(_embedding.embedding_info(metadata, label_img, subdir, global_step, tag))
        _embedding.write_projector_config(logdir, self._projector_infos)

    def add_pr_curve(self, tag, labels, predictions, global_step=None, num_thresholds=127, weights=None,
                     walltime=None):
        labels, predictions = make_np(labels), make_np(predictions)
        self._get_file_writer().add_summary(
            _summary.pr_curve(tag, labels, predictions, num_thresholds, weights), global_step, walltime)

    def add_pr_curve_raw(self, tag, true_positive_counts, false_positive_counts, true_negative_counts,
                         false_negative_counts, precision, recall, global_step=None, num_thresholds=127,
                         weights=None, walltime=None):
        self._get_file_writer().add_summary(
            _summary.pr_curve_raw(tag, true_positive_counts, false_positive_counts, true_negative_counts,
                                  false_negative_counts, precision, recall, num_thresholds, weights),
            global_step, walltime)

    # ---- lifetime -----------------------------------------------------------------------------

    def flush(self):
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self):
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
