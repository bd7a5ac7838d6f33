"""The command line's exit codes."""

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_DATA = 3
EXIT_INPUT = 4
EXIT_OUTPUT = 5
#: ``polarscore compare --fail-if-worse``: a named model is significantly worse than the baseline.
EXIT_WORSE = 6
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143
