#!/usr/bin/python3
"""What each rule of TaLB's defaults buys, over the evaluation's families (the ablation).

Usage: analysis/talb-ablation.py [RESULTS] [--out=FILE] [--pairs-out=FILE] [--warmup=1]
       [--format=table|csv|markdown]   (--help for all options)
Needs Debian's Python (pandas): run it as /usr/bin/python3 or through this shebang.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from talb_analysis.ablation import main  # noqa: E402

if __name__ == '__main__':
    sys.exit(main())
