//! Reading and writing a user's data: `.npy` (float32/float64, 1-D or 2-D, either byte order,
//! C or Fortran order) and CSV (header optional, columns selectable). Every problem is an
//! [`Error::Data`] naming the file and, where it applies, the row and column (1-based, as a
//! spreadsheet or editor shows them).

use crate::error::{Error, Result};
use nalgebra::DMatrix;
use std::path::Path;

/// Refuse files whose header claims more than this many values (a lying or corrupt header
/// must not trigger a huge allocation).
const MAX_VALUES: usize = 1 << 31;

fn data_err(path: &Path, msg: impl Into<String>) -> Error {
    Error::Data { path: path.to_path_buf(), msg: msg.into() }
}

/// A table of samples: one row per sample, with column names.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Values, `rows × columns`.
    pub values: DMatrix<f64>,
    /// Column names (`"0"`, `"1"`, … when the file has none).
    pub columns: Vec<String>,
}

/// Reads `.npy` files by extension and anything else as CSV.
pub fn read_table(path: &Path) -> Result<Table> {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy")) { read_npy(path) } else { read_csv(path) }
}

/// Reads a 1-D or 2-D float32/float64 `.npy` array (a 1-D array is one column).
pub fn read_npy(path: &Path) -> Result<Table> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    parse_npy(&bytes).map_err(|m| data_err(path, m))
}

fn parse_npy(b: &[u8]) -> std::result::Result<Table, String> {
    if b.is_empty() {
        return Err("empty file".into());
    }
    if b.len() < 10 || &b[..6] != b"\x93NUMPY" {
        return Err("not an .npy file (bad magic bytes)".into());
    }
    let (hlen, start) = match b[6] {
        1 => (u16::from_le_bytes([b[8], b[9]]) as usize, 10),
        2 | 3 if b.len() >= 12 => (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12),
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = b.get(start..start + hlen).ok_or("truncated .npy header")?;
    let header = std::str::from_utf8(header).map_err(|_| "the .npy header is not text")?;
    let field = |key: &str| -> std::result::Result<&str, String> {
        let at = header.find(&format!("'{key}'")).ok_or(format!("the .npy header has no '{key}'"))?;
        let rest = &header[at + key.len() + 2..];
        Ok(rest[rest.find(':').ok_or("malformed .npy header")? + 1..].trim_start())
    };
    let descr = field("descr")?;
    let descr = descr.strip_prefix('\'').and_then(|d| d.split('\'').next()).ok_or("malformed 'descr'")?;
    let (little, size) = match descr {
        "<f8" | "=f8" => (true, 8),
        ">f8" => (false, 8),
        "<f4" | "=f4" => (true, 4),
        ">f4" => (false, 4),
        d => {
            return Err(format!(
                "dtype '{d}' is not supported: save the array as float32 or float64 (e.g. x.astype('float64'))"
            ));
        }
    };
    let fortran = field("fortran_order")?.starts_with("True");
    let shape = field("shape")?;
    let shape = shape.strip_prefix('(').and_then(|s| s.split(')').next()).ok_or("malformed 'shape'")?;
    let dims: Vec<usize> = shape
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<usize>().map_err(|_| format!("malformed shape entry '{s}'")))
        .collect::<std::result::Result<_, _>>()?;
    let (rows, cols) = match dims[..] {
        [n] => (n, 1),
        [n, d] => (n, d),
        _ => return Err(format!("the array has {} dimensions; need 1 or 2", dims.len())),
    };
    let count = rows.checked_mul(cols).filter(|&c| c <= MAX_VALUES).ok_or("the header's shape is absurdly large")?;
    let data = &b[start + hlen..];
    if data.len() != count * size {
        return Err(format!(
            "the header says shape ({rows}, {cols}) of {descr} ({} bytes) but the file holds {} bytes of data",
            count * size,
            data.len()
        ));
    }
    if count == 0 {
        return Err("the array is empty".into());
    }
    let value = |k: usize| -> f64 {
        let c = &data[k * size..(k + 1) * size];
        match (size, little) {
            (8, true) => f64::from_le_bytes(c.try_into().unwrap_or([0; 8])),
            (8, false) => f64::from_be_bytes(c.try_into().unwrap_or([0; 8])),
            (_, true) => f32::from_le_bytes(c.try_into().unwrap_or([0; 4])) as f64,
            (_, false) => f32::from_be_bytes(c.try_into().unwrap_or([0; 4])) as f64,
        }
    };
    let values = if fortran {
        DMatrix::from_fn(rows, cols, |i, j| value(j * rows + i))
    } else {
        DMatrix::from_fn(rows, cols, |i, j| value(i * cols + j))
    };
    Ok(Table { values, columns: (0..cols).map(|j| j.to_string()).collect() })
}

/// Writes a 2-D float64 `.npy` array (C order).
pub fn write_npy(path: &Path, m: &DMatrix<f64>) -> Result<()> {
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({}, {}), }}", m.nrows(), m.ncols());
    // Pad so that magic + version + length + header is a multiple of 64, ending in '\n'.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + 8 * m.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            out.extend_from_slice(&m[(i, j)].to_le_bytes());
        }
    }
    std::fs::write(path, out).map_err(|source| Error::Io { path: path.to_path_buf(), source })
}

/// Reads a CSV file of numbers. The first line is a header when any of its cells is not a
/// number. Empty lines are skipped; every other line must have the same number of cells.
pub fn read_csv(path: &Path) -> Result<Table> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    parse_csv(&text).map_err(|m| data_err(path, m))
}

fn parse_csv(text: &str) -> std::result::Result<Table, String> {
    let delim = if text.lines().next().is_some_and(|l| l.contains('\t') && !l.contains(',')) { '\t' } else { ',' };
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).peekable();
    let (first_no, first) = *lines.peek().ok_or("empty file")?;
    let cells = |l: &str| -> Vec<String> { l.split(delim).map(|c| c.trim().trim_matches('"').to_string()).collect() };
    let head = cells(first);
    let has_header = head.iter().any(|c| c.parse::<f64>().is_err());
    let columns = if has_header {
        lines.next();
        head.clone()
    } else {
        (0..head.len()).map(|j| j.to_string()).collect()
    };
    let width = columns.len();
    let mut data = Vec::new();
    let mut rows = 0;
    for (no, line) in lines {
        let row = cells(line);
        if row.len() != width {
            return Err(format!(
                "line {}: {} cells, but the {} has {width}",
                no + 1,
                row.len(),
                if has_header { "header" } else { "first row" }
            ));
        }
        for (j, c) in row.iter().enumerate() {
            let v = c
                .parse::<f64>()
                .map_err(|_| format!("line {}, column {} ('{}'): '{c}' is not a number", no + 1, j + 1, columns[j]))?;
            data.push(v);
        }
        rows += 1;
    }
    if rows == 0 {
        return Err(format!(
            "no data rows (only {} on line {})",
            if has_header { "a header" } else { "blank lines" },
            first_no + 1
        ));
    }
    Ok(Table { values: DMatrix::from_row_slice(rows, width, &data), columns })
}

/// Parses a column selection — names or 0-based indices, comma-separated, with ranges `a-b` of
/// indices (`"0-4,7"`, `"x1,x2"`) — against a table's column names.
pub fn select_columns(path: &Path, table: &Table, spec: &str) -> Result<Vec<usize>> {
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if let Some(j) = table.columns.iter().position(|c| c == part) {
            out.push(j);
            continue;
        }
        let idx = |s: &str| -> Result<usize> {
            let j: usize = s.trim().parse().map_err(|_| {
                data_err(path, format!("no column named '{s}' (columns: {})", table.columns.join(", ")))
            })?;
            if j < table.columns.len() {
                Ok(j)
            } else {
                Err(data_err(
                    path,
                    format!("column index {j} out of range (the file has {} columns)", table.columns.len()),
                ))
            }
        };
        match part.split_once('-') {
            Some((a, b)) if !a.is_empty() => {
                let (a, b) = (idx(a)?, idx(b)?);
                if a > b {
                    return Err(data_err(path, format!("empty column range '{part}'")));
                }
                out.extend(a..=b);
            }
            _ => out.push(idx(part)?),
        }
    }
    if out.is_empty() {
        return Err(data_err(path, format!("column selection '{spec}' selects nothing")));
    }
    Ok(out)
}

/// Checks values a user supplied: every value finite, and no column constant (zero variance
/// carries no information and breaks standardisation).
pub fn check_values(path: &Path, table: &Table, cols: &[usize]) -> Result<()> {
    let m = &table.values;
    for i in 0..m.nrows() {
        for &j in cols {
            let v = m[(i, j)];
            if !v.is_finite() {
                return Err(data_err(
                    path,
                    format!("data row {}, column {} ('{}'): value {v} is not finite", i + 1, j + 1, table.columns[j]),
                ));
            }
        }
    }
    for &j in cols {
        let c = m.column(j);
        if c.iter().all(|&v| v == c[0]) {
            return Err(data_err(
                path,
                format!(
                    "column {} ('{}') is constant ({}): it carries no information; drop it",
                    j + 1,
                    table.columns[j],
                    c[0]
                ),
            ));
        }
    }
    Ok(())
}
