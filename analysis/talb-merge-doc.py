#!/usr/bin/python3
"""Update a family's committed evaluation tables from a report of some of its parts, cell by cell.

Usage: analysis/talb-merge-doc.py DOC_FAMILY_DIR REPORT_DIR [NAME ...]   (--help for all options)
talb-evaluate.sh --merge-doc calls it. Needs Debian's Python (pandas): run it as /usr/bin/python3
or through this shebang.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from talb_analysis.docmerge import main  # noqa: E402

if __name__ == '__main__':
    sys.exit(main())
