"""Analysis of talb simulator output: loading (run folders), stats (tables), plots (PNG).

Runs with Debian's Python (/usr/bin/python3: pandas, numpy, matplotlib). The command-line front end
is analysis/talb-report.py; doc/talb-analysis.rst defines every figure.
"""
from .loading import Dataset, TalbDataError, TalbDataWarning, load

__all__ = ['Dataset', 'TalbDataError', 'TalbDataWarning', 'load']
