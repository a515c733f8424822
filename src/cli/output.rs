//! Writing the commands' output files.

use crate::error::{Error, Result};
use std::path::Path;

/// Maps an I/O error on `path` to [`Error::Io`].
pub(super) fn io_err(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io { path: path.to_path_buf(), source }
}

/// Writes `text` to `path` through a temporary file, so a failure leaves nothing half-written.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, bytes).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))
}
