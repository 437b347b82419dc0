"""The embedding projector's files, laid out as torch.utils.tensorboard._embedding writes them.

tensorboardX writes the same tensors.tsv and metadata.tsv; its sprite grid and projector_config.pbtxt
differ (it appends to the config, torch rewrites it whole from a ProjectorConfig), so those two are here.
The config is written in protobuf text format, the format TensorBoard's projector reads.
"""
import math
import os

import numpy as np
from tensorboardX.embedding import make_mat, make_tsv  # noqa: F401
from tensorboardX.utils import make_grid

from ._convert import make_np


def make_sprite(label_img, save_path):
    """All label images on one square grid of ceil(sqrt(N)) columns, padded at the bottom."""
    from PIL import Image
    nrow = math.ceil(label_img.shape[0] ** 0.5)
    grid_chw = make_grid(make_np(label_img), ncols=nrow)
    square = np.zeros((grid_chw.shape[2], grid_chw.shape[2], 3))
    grid_hwc = grid_chw.transpose(1, 2, 0)
    square[:grid_hwc.shape[0], :, :] = grid_hwc
    Image.fromarray(np.uint8((square * 255).clip(0, 255))).save(os.path.join(save_path, 'sprite.png'), format='PNG')


def embedding_info(metadata, label_img, subdir, global_step, tag):
    """One ``embeddings { ... }`` entry of ProjectorConfig, as a dict of its fields in proto order."""
    # text format prints fields in field-number order: tensor_name 1, metadata_path 2, sprite 5, tensor_path 8
    info = {'tensor_name': f'{tag}:{str(global_step).zfill(5)}'}
    if metadata is not None:
        info['metadata_path'] = f'{subdir}/metadata.tsv'
    if label_img is not None:
        info['sprite'] = {'image_path': f'{subdir}/sprite.png',
                          'single_image_dim': [int(label_img.shape[3]), int(label_img.shape[2])]}
    info['tensor_path'] = f'{subdir}/tensors.tsv'
    return info


def _quote(s):
    # protobuf text format string escaping (C escapes; non-ASCII bytes as octal)
    out = []
    for b in s.encode('utf-8'):
        c = chr(b)
        if c in '"\'\\':
            out.append('\\' + c)
        elif c == '\n':
            out.append('\\n')
        elif c == '\r':
            out.append('\\r')
        elif c == '\t':
            out.append('\\t')
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append(f'\\{b:03o}')
    return '"' + ''.join(out) + '"'


def _fields(d, indent):
    pad = '  ' * indent
    lines = []
    for k, v in d.items():
        if isinstance(v, dict):
            lines.append(f'{pad}{k} {{')
            lines.extend(_fields(v, indent + 1))
            lines.append(f'{pad}}}')
        elif isinstance(v, list):
            lines.extend(f'{pad}{k}: {x}' for x in v)
        else:
            lines.append(f'{pad}{k}: {_quote(v)}')
    return lines


def write_projector_config(logdir, infos):
    """projector_config.pbtxt listing every embedding written so far."""
    lines = []
    for info in infos:
        lines.append('embeddings {')
        lines.extend(_fields(info, 1))
        lines.append('}')
    with open(os.path.join(logdir, 'projector_config.pbtxt'), 'wb') as f:
        f.write(('\n'.join(lines) + '\n').encode('utf-8'))
