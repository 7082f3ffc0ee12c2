"""Exceptions: every wfResult other than WF_OK arrives as one of these, with the library's message."""


class WeftError(RuntimeError):
    """A failure reported by the library; `result` is the wfResult's name ("WF_ERROR_IO")."""

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result


class DefError(WeftError, ValueError):
    """A def field out of range; `field` is its dotted path ("step.substeps"), as in the message."""

    def __init__(self, message, field=None):
        super().__init__(message, "WF_ERROR_INVALID_DEF")
        self.field = field if field is not None else message.split(":", 1)[0]


class UnknownFieldError(DefError, AttributeError):
    """A def field that does not exist (a typo, or a field of a nested def): the message names the
    close matches and the fields there are. An AttributeError too, so hasattr() answers False."""


class ArgumentError(WeftError, ValueError):
    """A bad argument: a stale cloth, an index out of range, an array of the wrong size, a NaN."""


class BackendUnavailableError(WeftError):
    """The backend or device asked for cannot be used."""


class DeviceLostError(WeftError):
    """The GPU failed during a step; the last state stays readable."""


class SceneError(WeftError, ValueError):
    """A scene file that cannot be read or parsed, or whose values are out of range."""


class ClosedError(WeftError):
    """The world (or renderer) was closed; its cloths and arrays read from it stay usable."""
