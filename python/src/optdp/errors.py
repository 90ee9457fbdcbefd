"""Exceptions raised by optdp, one per status code of the C ABI (optdp.h)."""

from __future__ import annotations


class OptdpError(Exception):
    """An error reported by the optdp library; ``str(e)`` is its message.

    ``code`` is the C ABI's status code (OPTDP_ERR_* in optdp.h). Subclasses
    name the kinds a caller may want to catch; other refusals (a prior that
    is not a distribution, a failed audit, ...) are raised as OptdpError
    itself, with the library's message saying which input is wrong.
    """

    code: int = 5
    #: The certified answer that came with the error, when there is one
    #: (``optimal``: a gap above tol); None otherwise.
    result: object = None

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        if code is not None:
            self.code = code


class BadInputError(OptdpError, ValueError):
    """Invalid input: a wrong shape, NaN, eps <= 0, an unknown option, ..."""

    code = 1


class TooLargeError(OptdpError):
    """The problem exceeds a size or memory limit; nothing was allocated."""

    code = 2


class NotConvergedError(OptdpError):
    """An iterative solver did not reach its tolerance."""

    code = 3


class UnsupportedError(OptdpError, ValueError):
    """A matrix-mechanism strategy cannot answer the workload."""

    code = 4


class CancelledError(OptdpError):
    """The computation was cancelled or ran out of its time limit (the
    ``timeout`` argument of the long computations)."""

    code = 7


class InternalError(OptdpError):
    """A bug in optdp (a recovered panic); please report the message."""

    code = 6


_BY_CODE = {c.code: c for c in (BadInputError, TooLargeError, NotConvergedError, UnsupportedError, InternalError,
                                CancelledError)}


def error_for(code: int, message: str) -> OptdpError:
    """Returns the exception for a status code and message."""
    return _BY_CODE.get(code, OptdpError)(message, code)
