#!/usr/bin/python3
"""Summarise a talb run or sweep folder: FCT, tensor completion, iteration time, speedup, plots.

Usage: analysis/talb-report.py RUN_OR_SWEEP_DIR [--out=DIR] [--baseline=ecmp] [--group-by=load,...]
       [--warmup=1] [--no-plots] [--format=table|csv|markdown]   (--help for all options)
Needs Debian's Python (pandas, matplotlib): run it as /usr/bin/python3 or through this shebang.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from talb_analysis.report import main  # noqa: E402

if __name__ == '__main__':
    sys.exit(main())
