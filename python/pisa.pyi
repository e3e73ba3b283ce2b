# Type hints of the `pisa` extension module (python/src).
import os
from typing import Any, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

Size = Union[int, tuple[int], tuple[int, int], tuple[int, int, int]]
Path = Union[str, os.PathLike[str]]

class PisaError(Exception):
    """Every error of pisa; the message is the full text (assembler
    diagnostics with file:line:col, launch errors, argument checks)."""

class PisaWarning(UserWarning):
    """Assembler warnings; running on the cpu device for want of Vulkan."""

def devices() -> list[str]:
    """The devices' names, the default first (`pisa devices`)."""

def load(
    *files: Union[Path, Sequence[Path]],
    device: Union[str, int, None] = None,
    validation: Union[bool, None] = None,
    timeout: float = 10.0,
    printf_buffer: Union[int, None] = None,
    profile: Union[Path, None] = None,
    numerics: Union[str, None] = None,
) -> Program:
    """Assembles PISA files (several are linked) and loads the program on
    a device: "cpu" (or its index), a Vulkan device's index or name substring; default
    PISA_DEVICE, else the best Vulkan device, else cpu without Vulkan. `profile`: a
    Vulkan Profiles JSON file the Vulkan device behaves as (`pisa run --profile`).
    `numerics`: "f32", "f64" or "soft" (`pisa run --numerics`, docs/numerics.md);
    default the device's."""

class Buffer:
    """Device memory that stays on the device across launches."""
    @property
    def size(self) -> int: ...
    @property
    def address(self) -> int: ...
    def read(self, dtype: npt.DTypeLike = None) -> np.ndarray: ...
    def write(self, data: Union[np.ndarray, np.generic, bytes], offset: int = 0) -> None: ...
    def __len__(self) -> int: ...

class Program:
    @property
    def device(self) -> str: ...
    def kernels(self) -> dict[str, list[tuple[str, int]]]: ...
    def globals(self) -> dict[str, int]: ...
    def read_global(self, name: str, dtype: npt.DTypeLike = None) -> np.ndarray: ...
    def write_global(self, name: str, value: Union[np.ndarray, np.generic, bytes]) -> None: ...
    def buffer(self, data: Union[int, np.ndarray, bytes]) -> Buffer: ...
    def run(
        self,
        kernel: str,
        global_size: Size,
        local_size: Union[Size, None] = None,
        offset: Union[Size, None] = None,
        args: Union[Sequence[Any], None] = None,
    ) -> None:
        """Runs a kernel to completion (GIL released); array arguments are
        copied back in place; what the kernel prints goes to sys.stdout.
        Ctrl-C ends the wait on a Vulkan device (KeyboardInterrupt); the
        program is unusable after, as after a timeout."""
    def validation_messages(self) -> list[str]: ...
