"""Image classification: the classic PyTorch CIFAR-10 tutorial CNN trained on handwritten digits.

Plain PyTorch: run it with `python examples/image_classification.py` (real torch) or, unchanged, with
`python -m torchlike examples/image_classification.py`.

The model is the tutorial's `Net` (3x32x32 input, two conv/pool stages, three linear layers), trained with
CrossEntropyLoss and SGD(lr=0.001, momentum=0.9) in the tutorial's loop. The data are the 8x8 handwritten digits
of the UCI "Optical Recognition of Handwritten Digits" data set (test part, 1797 images, 0..16 grey levels; by
E. Alpaydin and C. Kaynak, CC BY 4.0; the copy scikit-learn ships as `load_digits`), stored in
`examples/data/digits.npz`. Each image is upsampled to 32x32 and repeated to 3 channels so that it fits the
tutorial's network unchanged; 1437 images train, 360 are held out for the accuracy.

It prints the mean training loss and the test accuracy after each epoch (a tqdm progress bar too when stdout is
a terminal), and saves a checkpoint (model, optimizer, epoch) after each epoch; `--resume` continues from it.
Measured with the defaults (4 epochs, the tutorial's batch size 4, seed 0) on 2 CPU cores: test accuracy
94.7 % under torchlike (about 15-20 s) and 96.4 % under real torch: from the same seed the two draw different
initial weights and shuffling orders (torchlike's random generator is not PyTorch's). With the same initial
weights and order (--init, --no-shuffle) the two give the same losses (compat_tests/test_examples.py).

Options used by the tests: `--init PATH` loads an initial state_dict (so that two runs start from the same
weights), `--no-shuffle`, `--limit N` (train on the first N images), `--loss-log PATH` (per-step losses, JSON).
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, Dataset

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'digits.npz')
N_TEST = 360


class Net(nn.Module):
    """The CIFAR-10 tutorial's network (REFERENCE_MODELS.md, `Net`)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


class Digits(Dataset):
    """The 8x8 digits as 3x32x32 float images in [-1, 1] (the tutorial's Normalize((0.5,)*3, (0.5,)*3))."""

    def __init__(self, images, labels):
        x = images.astype(np.float32) / 16.0
        x = x.repeat(4, axis=1).repeat(4, axis=2)       # nearest-neighbour upsampling, 8x8 -> 32x32
        x = (x - 0.5) / 0.5
        self.images = np.ascontiguousarray(np.repeat(x[:, None], 3, axis=1))
        self.labels = labels.astype(np.int64)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return torch.from_numpy(self.images[i]), int(self.labels[i])


def load_digits(limit=None):
    """(train, test) Datasets; the split is a fixed permutation, so every run and library sees the same one."""
    with np.load(DATA) as f:
        images, labels = f['images'], f['labels']
    order = np.random.RandomState(0).permutation(len(labels))
    test, train = order[:N_TEST], order[N_TEST:]
    if limit is not None:
        train = train[:limit]
    return Digits(images[train], labels[train]), Digits(images[test], labels[test])


def evaluate(net, loader, device):
    correct = total = 0
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            outputs = net(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    return 100.0 * correct / total


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--epochs', type=int, default=4, help='total number of epochs (a resumed run continues to it)')
    ap.add_argument('--batch-size', type=int, default=4)
    ap.add_argument('--lr', type=float, default=0.001)
    ap.add_argument('--momentum', type=float, default=0.9)
    ap.add_argument('--limit', type=int, default=None, help='train on the first N training images only')
    ap.add_argument('--seed', type=int, default=0, help='torch.manual_seed for the initial weights and shuffling')
    ap.add_argument('--checkpoint', default='image_classification.ckpt', help='saved after every epoch')
    ap.add_argument('--resume', action='store_true', help='continue from --checkpoint')
    ap.add_argument('--no-shuffle', action='store_true', help='visit the training images in order')
    ap.add_argument('--init', default=None, help='load this state_dict as the initial weights')
    ap.add_argument('--loss-log', default=None, help='write the per-step losses and accuracies here (JSON)')
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    trainset, testset = load_digits(args.limit)
    trainloader = DataLoader(trainset, batch_size=args.batch_size, shuffle=not args.no_shuffle)
    testloader = DataLoader(testset, batch_size=100, shuffle=False)

    net = Net()
    if args.init:
        net.load_state_dict(torch.load(args.init))
    net.to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=args.lr, momentum=args.momentum)

    start_epoch = 0
    if args.resume:
        ckpt = torch.load(args.checkpoint, map_location=device)
        net.load_state_dict(ckpt['model'])
        optimizer.load_state_dict(ckpt['optimizer'])
        start_epoch = ckpt['epoch'] + 1
        print(f'resumed from {args.checkpoint} after epoch {start_epoch}')

    log = {'losses': [], 'accuracy': []}
    for epoch in range(start_epoch, args.epochs):
        net.train()
        batches = trainloader
        if sys.stdout.isatty():      # a progress bar only where someone watches it, not in logs or pipes
            from tqdm import tqdm
            batches = tqdm(trainloader, desc=f'epoch {epoch + 1}', leave=False)
        running_loss = 0.0
        for inputs, labels in batches:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            outputs = net(inputs)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
            if args.loss_log:
                log['losses'].append(loss.item())
        net.eval()
        accuracy = evaluate(net, testloader, device)
        log['accuracy'].append(accuracy)
        print(f'[epoch {epoch + 1}] loss: {running_loss / len(trainloader):.3f}  '
              f'test accuracy: {accuracy:.1f} %', flush=True)
        torch.save({'epoch': epoch, 'model': net.state_dict(), 'optimizer': optimizer.state_dict()},
                   args.checkpoint)

    if args.loss_log:
        with open(args.loss_log, 'w') as f:
            json.dump(log, f)
    print('Finished Training')


if __name__ == '__main__':
    main()
