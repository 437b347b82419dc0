"""Summary protobufs as torch.utils.tensorboard.summary builds them, on tensorboardX's protobuf classes.

tensorboardX's own helpers are used where their output is PyTorch's (histogram buckets, PNG encoding, text,
pr curves). Three builders differ in tensorboardX and are written here: tensorboardX rewrites tags with
characters TensorFlow rejects (torch keeps them), converts float images without clipping to [0, 255] (torch
clips), and its hparams has no ``hparam_domain_discrete`` and types values differently.
"""
import numpy as np
from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
from tensorboardX.proto.tensor_pb2 import TensorProto
from tensorboardX.summary import (compute_curve, histogram_raw, make_histogram, make_image, pr_curve,  # noqa: F401
                                  pr_curve_raw, text)
from tensorboardX.utils import convert_to_HWC

from ..._tensor import Tensor
from ._convert import make_np


def scalar(name, tensor, new_style=False, double_precision=False):
    tensor = make_np(tensor).squeeze()
    if tensor.ndim != 0:
        raise AssertionError(f'Tensor should contain one element (0 dimensions). Was given size: {tensor.size} '
                             f'and {tensor.ndim} dimensions.')
    value = float(tensor)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    if double_precision:
        proto = TensorProto(double_val=[value], dtype='DT_DOUBLE')
    else:
        proto = TensorProto(float_val=[value], dtype='DT_FLOAT')
    smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name='scalars'))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=smd)])


def histogram(name, values, bins, max_bins=None):
    hist = make_histogram(make_np(values).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def image(tag, tensor, rescale=1, dataformats='NCHW'):
    tensor = convert_to_HWC(make_np(tensor), dataformats)
    scale = 1 if tensor.dtype == np.uint8 else 255      # floats are in [0, 1], uint8 in [0, 255]
    tensor = (tensor.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=make_image(tensor, rescale=rescale))])


def _plugin_summary(tag, content):
    from tensorboardX.proto.plugin_hparams_pb2 import HParamsPluginData
    data = HParamsPluginData(version=0, **content)
    smd = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name='hparams',
                                                                 content=data.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=smd)])


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The experiment, session-start and session-end summaries of TensorBoard's hparams plugin."""
    from google.protobuf import struct_pb2
    from tensorboardX.proto.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
    from tensorboardX.proto.plugin_hparams_pb2 import SessionEndInfo, SessionStartInfo
    if not isinstance(hparam_dict, dict):
        raise TypeError('parameter: hparam_dict should be a dictionary, nothing logged.')
    if not isinstance(metric_dict, dict):
        raise TypeError('parameter: metric_dict should be a dictionary, nothing logged.')
    hparam_domain_discrete = hparam_domain_discrete or {}
    if not isinstance(hparam_domain_discrete, dict):
        raise TypeError('parameter: hparam_domain_discrete should be a dictionary, nothing logged.')
    for k, v in hparam_domain_discrete.items():
        if k not in hparam_dict or not isinstance(v, list) or not all(isinstance(d, type(hparam_dict[k])) for d in v):
            raise TypeError(f'parameter: hparam_domain_discrete[{k}] should be a list of same type as '
                            f'hparam_dict[{k}].')
    hps = []
    ssi = SessionStartInfo()
    # the order of the tests is torch's: a bool is an int, so it is logged as a number
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, (int, float)):
            kind, field = 'DATA_TYPE_FLOAT64', 'number_value'
        elif isinstance(v, str):
            kind, field = 'DATA_TYPE_STRING', 'string_value'
        elif isinstance(v, Tensor):
            ssi.hparams[k].number_value = make_np(v)[0]
            hps.append(HParamInfo(name=k, type=DataType.Value('DATA_TYPE_FLOAT64')))
            continue
        else:
            raise ValueError('value should be one of int, float, str, bool, or torch.Tensor')
        setattr(ssi.hparams[k], field, v)
        domain = None
        if k in hparam_domain_discrete:
            domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d}) for d in hparam_domain_discrete[k]])
        hps.append(HParamInfo(name=k, type=DataType.Value(kind), domain_discrete=domain))
    ssi = _plugin_summary('_hparams_/session_start_info', {'session_start_info': ssi})
    exp = Experiment(hparam_infos=hps, metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    exp = _plugin_summary('_hparams_/experiment', {'experiment': exp})
    sei = _plugin_summary('_hparams_/session_end_info',
                          {'session_end_info': SessionEndInfo(status=Status.Value('STATUS_SUCCESS'))})
    return exp, ssi, sei
