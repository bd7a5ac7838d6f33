# Type stubs of the compiled extension (the Rust crate in src/, built by maturin).
import mmap
from typing import Any

__version__: str

def set_unicode_tables(flags: bytes, version: str) -> None: ...
def unicode_tables_version() -> str | None: ...
def set_match_fold_table(payload: bytes) -> None: ...
def regex_search(
    program: str, text: str, step_budget: int | None = None, backtrack: bool = False
) -> int: ...
def long_text_work(
    kernel: str, a: str, b: str, max_work: int | None = None
) -> tuple[float | None, int]: ...

class ArrowRows:
    """Rows of a batch, as one Arrow struct array (the Arrow PyCapsule interface)."""

    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...
    def __len__(self) -> int: ...

def read_eval_samples(
    archive: mmap.mmap | bytes,
    entries: list[tuple[int, int, int, int, int]],
    verdicts: list[str],
    source_format: str,
    task: str | None,
    model: str | None,
) -> tuple[ArrowRows, list[int]]: ...
def read_zip_directory(
    archive: mmap.mmap | bytes,
) -> list[tuple[str, int, int, int, int, int]] | None: ...
def prune_json(text: bytes, keep: dict[str, Any]) -> bytes | None: ...
