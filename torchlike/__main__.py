"""``python -m torchlike script.py [args]``: run an unchanged PyTorch program on torchlike (see _runner.py)."""
import sys

from torchlike._runner import main

if __name__ == '__main__':
    sys.exit(main())
