#!/usr/bin/python3
"""Count the evaluation's goals over every family's talb_vs_best.csv (see doc/talb-evaluation.rst).

Usage: analysis/talb-goals.py [EVAL_DIR] [--within=2] [--tie=0.05] [--out=FILE]
       [--format=table|markdown]   (--help for all options)
Needs Debian's Python (pandas): run it as /usr/bin/python3 or through this shebang.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from talb_analysis.goals import main  # noqa: E402

if __name__ == '__main__':
    sys.exit(main())
