//! Reading and writing a user's data: `.npy` (float32/float64, 1-D or 2-D, either byte order,
//! C or Fortran order) and CSV ([`CsvOptions`]: header yes/no/auto, delimiter `,` `;` or tab
//! detected, quoted cells, UTF-8 BOM, CRLF, decimal commas with `;`). Every problem is an
//! [`Error::Data`] naming the file and, where it applies, where in it:
//!
//! - **column `j`** is 0-based, as `--x-cols`/`--y-cols`, numpy and pandas' `iloc` count, and is
//!   followed by the column's name (`column 1 ('b')`);
//! - **row `i`** is the 0-based data row (the header is not a row), as numpy and pandas' `iloc`
//!   count;
//! - **line `l`** is 1-based, the line of a CSV file as an editor shows it (the header is
//!   line 1 when there is one), given beside the row for CSV files.
use crate::error::{Column, Error, Result, Row};
use nalgebra::DMatrix;
use std::path::Path;

/// Refuse files whose header claims more than this many values (a lying or corrupt header
/// must not trigger a huge allocation).
const MAX_VALUES: usize = 1 << 31;

fn data_err(path: &Path, msg: impl Into<String>) -> Error {
    Error::Data { path: path.to_path_buf(), msg: msg.into() }
}

/// The cells that mark a missing value: pandas' default `na_values` of `read_csv` (the empty
/// cell among them). In a column declared a label they are refused, not read as a category.
const MISSING: [&str; 19] = [
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA",
    "NULL", "NaN", "None", "n/a", "nan", "null",
];

/// What the refusal of a text cell in a column of numbers advises: declare the column a label.
pub const TEXT_ADVICE: &str =
    "a class label written as text is read as categories when its column is declared discrete";

/// What it advises where no column can be a label (`estimate --given`, Python's
/// `conditional_mi` and `conditional_test`), instead of [`TEXT_ADVICE`].
pub const GIVEN_TEXT_ADVICE: &str = "the conditional estimators read every column as numbers (mibound has no conditional estimator for labels yet): code the labels as numbers, or leave the column out";

/// Whether a cell marks a missing value ([`MISSING`]).
fn is_missing(cell: &str) -> bool {
    MISSING.contains(&cell.trim())
}

/// A table of samples: one row per sample, with column names.
///
/// A CSV column with a cell that is not a number (text, or an empty cell) is kept as text and
/// refused only when it is selected ([`Table::select`]): a column nobody asked for never blocks
/// the others. Declared as a label ([`Table::select_labelled`]), a text column is read as
/// categories.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Values, `rows × columns`; NaN throughout a column kept as text.
    pub values: DMatrix<f64>,
    /// Column names (`"0"`, `"1"`, … when the file has none; an empty header cell is named
    /// `"Unnamed: j"`, as pandas names it).
    pub columns: Vec<String>,
    /// For a CSV file, the 1-based line of the file each row was read from; empty for `.npy`.
    pub lines: Vec<usize>,
    /// For each column, its cells as text when one of them is not a number (else `None`).
    text: Vec<Option<TextColumn>>,
    /// Whether a numeric first row of 1 or 2 cells (`0`, `0,1`) was taken for a header, as
    /// pandas writes it over floats ([`Header::Auto`]): a caller should say so, as the same row
    /// from another tool may be data.
    pub header_guessed: bool,
    /// Whether the first row holds text, as a header does, and was read as data because the
    /// header was declared absent ([`Header::No`]): a message about its cells says so.
    first_row_text: bool,
}

/// A CSV column with a cell that is not a number: its cells as written and the first such cell.
#[derive(Clone, Debug, PartialEq)]
struct TextColumn {
    cells: Vec<String>,
    /// The first cell (data row) that is not a number.
    first: usize,
}

impl Table {
    /// A table of numbers with no file's header or lines (an `.npy` array): columns named
    /// `"0"`, `"1"`, ….
    fn of_numbers(values: DMatrix<f64>) -> Table {
        let cols = values.ncols();
        Table {
            values,
            columns: (0..cols).map(|j| j.to_string()).collect(),
            lines: Vec::new(),
            text: vec![None; cols],
            header_guessed: false,
            first_row_text: false,
        }
    }

    /// The columns `cols` (0-based) of the table, with how messages name them. A selected column
    /// with a cell that is not a number is an error naming the file `path`, the first such cell's
    /// line, row and column (the first in reading order among the selected columns).
    pub fn select(&self, path: &Path, cols: &[usize]) -> Result<(DMatrix<f64>, Vec<Column>)> {
        self.select_labelled(path, cols, &[])
    }

    /// [`Table::select`], where the columns `labels` (among `cols`) are class labels: one of them
    /// held as text is read as categories, each distinct text (as written, spaces trimmed) one
    /// level, coded `0, 1, 2, …` in sorted (byte) order of the texts — numpy's `unique` and
    /// scikit-learn's `LabelEncoder` order. A cell that marks a missing value (empty, `NA`,
    /// `NaN`, … as pandas reads them) is refused there too.
    pub fn select_labelled(
        &self,
        path: &Path,
        cols: &[usize],
        labels: &[usize],
    ) -> Result<(DMatrix<f64>, Vec<Column>)> {
        let refused = cols
            .iter()
            .filter_map(|&j| {
                let t = self.text[j].as_ref()?;
                let at = if labels.contains(&j) { t.cells.iter().position(|c| is_missing(c))? } else { t.first };
                Some((at, j))
            })
            .min();
        if let Some((row, j)) = refused {
            let cell = &self.text[j].as_ref().expect("a text column").cells[row];
            let at = format!("{}, {}", self.row(row), self.column(j));
            return Err(data_err(
                path,
                if cell.is_empty() {
                    format!("{at}: empty cell; every value is needed (drop or fill missing values)")
                } else if is_missing(cell) {
                    format!("{at}: '{cell}' marks a missing value; every value is needed (drop or fill missing values)")
                } else if row == 0 && self.first_row_text {
                    format!(
                        "{at}: '{cell}' is not a number: the first line holds text, as a header does, and was read as data because the header was declared absent (--header no)"
                    )
                } else {
                    format!("{at}: '{cell}' is not a number ({TEXT_ADVICE})")
                },
            ));
        }
        let mut values = self.values.select_columns(cols);
        for (k, &j) in cols.iter().enumerate() {
            if let (Some(t), Some(levels)) = (&self.text[j], self.levels(j)) {
                for (i, cell) in t.cells.iter().enumerate() {
                    values[(i, k)] = levels.binary_search(cell).unwrap_or_default() as f64;
                }
            }
        }
        Ok((values, cols.iter().map(|&j| self.column(j)).collect()))
    }

    /// The levels of column `j` when it is held as text (else `None`): its distinct cells in
    /// sorted (byte) order, the order of the codes [`Table::select_labelled`] gives them.
    pub fn levels(&self, j: usize) -> Option<Vec<String>> {
        let t = self.text.get(j)?.as_ref()?;
        let mut levels = t.cells.clone();
        levels.sort_unstable();
        levels.dedup();
        Some(levels)
    }

    /// [`Table::levels`] of each of the columns `cols`, for [`crate::data::rules::Input::levels`].
    pub fn levels_of(&self, cols: &[usize]) -> Vec<Option<Vec<String>>> {
        cols.iter().map(|&j| self.levels(j)).collect()
    }

    /// The cell of row `i`, column `j` as written, for a column held as text (else `None`):
    /// what a message shows for a label read as categories.
    pub fn text_cell(&self, i: usize, j: usize) -> Option<&str> {
        self.text.get(j)?.as_ref()?.cells.get(i).map(String::as_str)
    }

    /// Data row `i` for messages: `row i` (0-based), with its line for a CSV file.
    pub fn row(&self, i: usize) -> Row {
        Row { index: i, line: self.lines.get(i).copied() }
    }

    /// Column `j` with its name.
    pub fn column(&self, j: usize) -> Column {
        Column { index: j, name: self.columns[j].clone() }
    }

    /// Whether the table was read from a CSV file.
    pub fn is_csv(&self) -> bool {
        !self.lines.is_empty()
    }
}

/// Reads `.npy` files by extension and anything else as CSV with the default [`CsvOptions`].
pub fn read_table(path: &Path) -> Result<Table> {
    read_table_with(path, &CsvOptions::default())
}

/// Reads `.npy` files by extension and anything else as CSV with `opts`.
pub fn read_table_with(path: &Path, opts: &CsvOptions) -> Result<Table> {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy")) {
        read_npy(path)
    } else {
        read_csv_with(path, opts)
    }
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
    Ok(Table::of_numbers(values))
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

/// Whether the first row of a CSV file is a header (`--header yes|no|auto`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Header {
    /// The first row names the columns.
    Yes,
    /// Every row is data; the columns are named `"0"`, `"1"`, ….
    No,
    /// The first row is a header when any of its cells is not a number, or when it reads
    /// exactly `0,1,…,n−1` with n ≥ 3 (pandas' names for an array's columns); any other fully
    /// numeric first row is data (say `Yes` for numeric column names).
    #[default]
    Auto,
}

impl std::str::FromStr for Header {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "yes" | "true" | "1" => Ok(Header::Yes),
            "no" | "false" | "0" => Ok(Header::No),
            "auto" => Ok(Header::Auto),
            _ => Err(Error::param("header", s, "must be yes, no or auto")),
        }
    }
}

/// Whether a first row reads exactly `0,1,…,n−1`: the column names pandas writes for a frame
/// made from an array (`pd.DataFrame(a).to_csv(index=False)`, `pd.Series(v).to_csv(index=False)`),
/// a header and not data. With at least 3 cells a data row equal to it is far less likely than
/// this file. With 1 or 2 cells (`0`, `0,1`) it is a header only when the next row's cells are
/// numbers written as no integer is (`0.25`, `1e-3`): pandas writes every float with a point or
/// an exponent, so a float column's data never reads `0` or `1`; a column of whole numbers
/// under such a first row stays data.
fn is_range_index(first: &csv::StringRecord, next: Option<&csv::StringRecord>, decimal_comma: bool) -> bool {
    let integer = |c: &str| {
        let digits = c.strip_prefix(['-', '+']).unwrap_or(c);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    let range = first.iter().enumerate().all(|(j, c)| c.trim() == j.to_string());
    range
        && (first.len() >= 3
            || next.is_some_and(|r| {
                r.len() == first.len()
                    && r.iter().all(|c| parse_number(c, decimal_comma).is_some() && !integer(c.trim()))
            }))
}

/// How to read a CSV file; the default detects both the header and the delimiter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CsvOptions {
    /// Whether the first row is a header.
    pub header: Header,
    /// The cell delimiter; `None` detects `,`, `;` or tab (see [`detect_delimiter`]).
    pub delimiter: Option<char>,
}

/// Parses a delimiter as the command line gives it: one ASCII character, or `tab`/`\t`,
/// `comma`, `semicolon`, `space`.
pub fn parse_delimiter(s: &str) -> Result<char> {
    let c = match s {
        "tab" | "\\t" | "\t" => '\t',
        "comma" => ',',
        "semicolon" => ';',
        "space" => ' ',
        _ => {
            let mut cs = s.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => c,
                _ => return Err(Error::param("delimiter", s, "must be one character (or tab, comma, semicolon)")),
            }
        }
    };
    if !c.is_ascii() || c == '"' || c == '\n' || c == '\r' || c.is_ascii_alphanumeric() || c == '.' || c == '-' {
        return Err(Error::param(
            "delimiter",
            s,
            "must be an ASCII separator other than a quote, a digit, a letter, '.' or '-'",
        ));
    }
    Ok(c)
}

/// The delimiter of CSV text among `,`, `;` and tab: the one that occurs the same, non-zero
/// number of times (outside double quotes) on each of the first 20 non-empty lines; tab is
/// preferred over `;` over `,` when several qualify (Excel's `;` files write decimal commas,
/// which also count the same on every line). When none is consistent, the one most frequent
/// on the first line; `,` when none occurs.
pub fn detect_delimiter(text: &str) -> char {
    const CANDIDATES: [char; 3] = ['\t', ';', ','];
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).take(20).collect();
    let count = |line: &str, d: char| -> usize {
        let mut quoted = false;
        line.chars()
            .filter(|&c| {
                if c == '"' {
                    quoted = !quoted;
                }
                !quoted && c == d
            })
            .count()
    };
    for d in CANDIDATES {
        let first = lines.first().map_or(0, |l| count(l, d));
        if first > 0 && lines.iter().all(|l| count(l, d) == first) {
            return d;
        }
    }
    let first = lines.first().copied().unwrap_or("");
    CANDIDATES.into_iter().filter(|&d| count(first, d) > 0).max_by_key(|&d| count(first, d)).unwrap_or(',')
}

/// Reads a CSV file of numbers with the default [`CsvOptions`] (header and delimiter detected).
pub fn read_csv(path: &Path) -> Result<Table> {
    read_csv_with(path, &CsvOptions::default())
}

/// Reads a CSV file of numbers: a UTF-8 BOM is skipped, CRLF and LF line ends are accepted,
/// cells may be quoted (`"1.5"`, `"a, b"`), empty lines are skipped, and with a delimiter other
/// than `,` a decimal comma (`1,5`) is read as a decimal point. Every row must have as many cells
/// as the first. An empty or non-numeric cell is an error naming its line, row and column (see
/// the module docs) when its column is selected ([`Table::select`]); a declared label column
/// may hold text ([`Table::select_labelled`]).
pub fn read_csv_with(path: &Path, opts: &CsvOptions) -> Result<Table> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let text = decode_text(&bytes).map_err(|m| data_err(path, m))?;
    parse_csv(text, opts).map_err(|m| data_err(path, m))
}

/// The file's text without its UTF-8 BOM, or why it is not UTF-8.
fn decode_text(bytes: &[u8]) -> std::result::Result<&str, String> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err("the file is UTF-16 text: save it as UTF-8 (Excel: \"CSV UTF-8\")".into());
    }
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        format!("line {line}: not UTF-8 text (byte {at}); save the file as UTF-8")
    })
}

/// A number as written in a cell; with `decimal_comma`, `1,5` is 1.5.
fn parse_number(cell: &str, decimal_comma: bool) -> Option<f64> {
    let cell = cell.trim();
    if decimal_comma && cell.contains(',') && !cell.contains('.') {
        cell.replacen(',', ".", 1).parse().ok()
    } else {
        cell.parse().ok()
    }
}

// Long because header detection, the index column, ragged rows and bad cells each need the row
// and column being read for their message; they are handled where the row is.
fn parse_csv(text: &str, opts: &CsvOptions) -> std::result::Result<Table, String> {
    let delim = opts.delimiter.unwrap_or_else(|| detect_delimiter(text));
    let delim_byte = u8::try_from(delim).map_err(|_| format!("delimiter '{delim}' is not an ASCII character"))?;
    let decimal_comma = delim != ',';
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delim_byte)
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    // Lines from byte offsets (the csv crate's own line count drifts with CRLF line ends: a
    // record after a CRLF starts, for it, at the LF, which is counted here).
    let newlines: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
    let line_of =
        |p: Option<&csv::Position>| p.map_or(0, |p| newlines.partition_point(|&n| n <= p.byte() as usize) + 1);
    let mut records = Vec::new();
    for r in reader.records() {
        let r = r.map_err(|e| match e.position() {
            Some(p) => format!("line {}: {e}", line_of(Some(p))),
            None => e.to_string(),
        })?;
        // A line of blanks is an empty line.
        if r.len() == 1 && r[0].is_empty() {
            continue;
        }
        let line = line_of(r.position());
        records.push((line, r));
    }
    let Some((first_line, first)) = records.first() else { return Err("empty file".into()) };
    let named = first.iter().any(|c| parse_number(c, decimal_comma).is_none());
    let has_header = match opts.header {
        Header::Yes => true,
        Header::No => false,
        Header::Auto => named || is_range_index(first, records.get(1).map(|r| &r.1), decimal_comma),
    };
    let header_guessed = has_header && opts.header == Header::Auto && !named && first.len() < 3;
    let first_row_text = named && !has_header;
    let columns: Vec<String> = if has_header {
        first
            .iter()
            .enumerate()
            .map(|(j, c)| if c.is_empty() { format!("Unnamed: {j}") } else { c.to_string() })
            .collect()
    } else {
        (0..first.len()).map(|j| j.to_string()).collect()
    };
    let width = columns.len();
    let shown = |d: char| if d == '\t' { "tab".to_string() } else { format!("'{d}'") };
    let body = &records[usize::from(has_header)..];
    let mut data = Vec::with_capacity(body.len() * width);
    let mut lines = Vec::with_capacity(body.len());
    // The first row of each column whose cell is not a number: that column is kept as text.
    let mut first_text: Vec<Option<usize>> = vec![None; width];
    for (row, (line, r)) in body.iter().enumerate() {
        if r.len() != width {
            return Err(format!(
                "line {line} (row {row}): {} cells, but the {} has {width} (cells separated by {})",
                r.len(),
                if has_header { "header" } else { "first row" },
                shown(delim)
            ));
        }
        for (j, c) in r.iter().enumerate() {
            data.push(parse_number(c, decimal_comma).unwrap_or_else(|| {
                first_text[j].get_or_insert(row);
                f64::NAN
            }));
        }
        lines.push(*line);
    }
    if lines.is_empty() {
        return Err(format!("no data rows (only a header on line {first_line})"));
    }
    let text = (0..width)
        .map(|j| {
            first_text[j].map(|first| TextColumn { cells: body.iter().map(|(_, r)| r[j].to_string()).collect(), first })
        })
        .collect();
    Ok(Table {
        values: DMatrix::from_row_slice(lines.len(), width, &data),
        columns,
        lines,
        text,
        header_guessed,
        first_row_text,
    })
}

/// The items of a comma-separated list of columns (`--x-cols`, `--discrete`, …), trimmed, empty
/// ones left out. A name holding a comma is written in double quotes (`"a,b",c`; `""` inside
/// is one quote); a quoted item keeps its quotes here, so that [`select_columns`] and
/// [`names_column`] read it as a name only, never as an index or a range.
pub fn split_list(spec: &str) -> Vec<String> {
    let mut items = vec![String::new()];
    let mut quoted = false;
    let mut chars = spec.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                items.last_mut().expect("one item").push_str("\"\"");
            }
            '"' => {
                quoted = !quoted;
                items.last_mut().expect("one item").push('"');
            }
            ',' if !quoted => items.push(String::new()),
            c => items.last_mut().expect("one item").push(c),
        }
    }
    items.into_iter().map(|i| i.trim().to_string()).filter(|i| !i.is_empty()).collect()
}

/// The name a quoted item (`"a,b"`) stands for, or `None` for an item not quoted.
fn unquoted(item: &str) -> Option<String> {
    let inner = item.strip_prefix('"')?.strip_suffix('"')?;
    Some(inner.replace("\"\"", "\""))
}

/// The ways to read `part` as a range `a-b` of two ends that each `end` reads (a name or an
/// index): one per hyphen where both sides read, so that `x-1-x-2` is the range from `x-1` to
/// `x-2` when those are columns. The caller refuses a part read two ways.
fn ranges<T>(part: &str, end: impl Fn(&str) -> Option<T>) -> Vec<(T, T)> {
    part.match_indices('-')
        .filter(|&(i, _)| i > 0)
        .filter_map(|(i, _)| Some((end(&part[..i])?, end(&part[i + 1..])?)))
        .collect()
}

/// Whether `item` of a declared list (`--discrete`, `--continuous`) names the column `col`, one
/// of the columns `among` (those a selection kept). A name wins over a position, as in
/// [`select_columns`]: an item that is the name of one of `among` names that column only;
/// otherwise a 0-based index names the column at that position, and a range `a-b` the columns
/// from `a` to `b`, each end read as a name of `among` first, else as an index.
pub fn names_column(item: &str, col: &Column, among: &[&Column]) -> bool {
    let named = |s: &str| among.iter().find(|c| c.name == s.trim()).map(|c| c.index);
    if let Some(name) = unquoted(item) {
        return named(&name) == Some(col.index);
    }
    if let Some(j) = named(item) {
        return j == col.index;
    }
    let end = |s: &str| named(s).or_else(|| s.trim().parse::<usize>().ok());
    match ranges(item, end)[..] {
        [] => item.parse::<usize>().is_ok_and(|j| j == col.index),
        [(a, b), ..] => (a..=b).contains(&col.index),
    }
}

/// The columns of `table` among `cols` that an item of the comma-separated `declared` names
/// ([`names_column`], among the columns `cols`); none without a list.
pub fn declared_columns(table: &Table, cols: &[usize], declared: Option<&str>) -> Vec<usize> {
    let Some(list) = declared else { return Vec::new() };
    let items = split_list(list);
    let kept: Vec<Column> = cols.iter().map(|&j| table.column(j)).collect();
    let among: Vec<&Column> = kept.iter().collect();
    kept.iter().filter(|c| items.iter().any(|i| names_column(i, c, &among))).map(|c| c.index).collect()
}

/// A column selection read against a table's column names ([`select_columns`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// The selected columns, 0-based, in the order asked.
    pub columns: Vec<usize>,
    /// Numbers in the selection, as written, that were read as a column's name although that
    /// column stands at another position, with that position: pandas writes integer column
    /// names, one place to the right of them when it writes its index too. A caller should say
    /// so, since the number was a valid position as well.
    pub numbers_as_names: Vec<(String, usize)>,
}

/// How one end of a selection was read.
#[derive(Clone, Copy, PartialEq)]
enum Reading {
    /// A column's name (a number at its own position included).
    Name,
    /// A number that is the name of the column at another position.
    NumberAsName,
    /// A 0-based position that is no column's name.
    Position,
}

/// One end of a selection (a whole part or one end of a range) against the table's columns: a
/// name (once only), else a 0-based position.
fn read_end(path: &Path, table: &Table, s: &str) -> Result<(usize, Reading)> {
    let s = s.trim();
    let ncols = table.columns.len();
    let named: Vec<usize> = (0..ncols).filter(|&j| table.columns[j] == s).collect();
    if let [a, b, ..] = named[..] {
        return Err(data_err(
            path,
            format!("columns {a} and {b} are both named '{s}': name each column once (rename one) to select it"),
        ));
    }
    if let Some(&j) = named.first() {
        let moved = s.parse::<usize>().is_ok_and(|n| n != j && n < ncols);
        return Ok((j, if moved { Reading::NumberAsName } else { Reading::Name }));
    }
    let j: usize = s.parse().map_err(|_| {
        // A negative number is no position: they count from 0.
        let negative = s.parse::<i64>().is_ok_and(|v| v < 0);
        let why = if negative { "; column indices count from 0 at the first column" } else { "" };
        data_err(path, format!("no column named '{s}' (columns: {}){why}", table.columns.join(", ")))
    })?;
    if j < ncols {
        Ok((j, Reading::Position))
    } else {
        Err(data_err(path, format!("column index {j} out of range (the file has {ncols} columns)")))
    }
}

/// Parses a column selection — names or 0-based indices, comma-separated, with ranges `a-b`
/// whose ends are names or indices (`"0-4,7"`, `"x1,x2"`, `"age-s6"`) — against a table's column
/// names. A whole part that names a column (`"x-1"`) is that column, not a range. A name wins
/// over a position: with the columns `Unnamed: 0, 0, 1` (a pandas frame with integer names
/// and its index), `0` is column 1; [`Selection::numbers_as_names`] lists such numbers. Refused:
/// a range with one end read as such a name and the other as a position, and a column selected
/// twice.
pub fn select_columns(path: &Path, table: &Table, spec: &str) -> Result<Selection> {
    let read = |s: &str| read_end(path, table, s);
    let mut out: Vec<usize> = Vec::new();
    let mut numbers_as_names: Vec<(String, usize)> = Vec::new();
    let mut note = |s: &str, (j, r): (usize, Reading)| {
        if r == Reading::NumberAsName && !numbers_as_names.iter().any(|(t, _)| t == s.trim()) {
            numbers_as_names.push((s.trim().to_string(), j));
        }
        j
    };
    for item in split_list(spec) {
        if let Some(name) = unquoted(&item) {
            if !table.columns.contains(&name) {
                return Err(data_err(
                    path,
                    format!("no column named '{name}' (columns: {})", table.columns.join(", ")),
                ));
            }
            out.push(note(&name, read(&name)?));
            continue;
        }
        let part = item.as_str();
        let whole = table.columns.iter().any(|c| c == part);
        let split = ranges(part, |s| read(s).ok().map(|_| s.len()));
        if split.len() > 1 && !whole {
            return Err(data_err(
                path,
                format!(
                    "column range '{part}' can be read {} ways: quote the names (\"a-b\"-c) or use positions",
                    split.len()
                ),
            ));
        }
        let at = split.first().map(|&(a, _)| a);
        match at.map(|i| (&part[..i], &part[i + 1..])).or_else(|| part.split_once('-')) {
            Some((a, b)) if !a.is_empty() && !whole => {
                let (ra, rb) = (read(a)?, read(b)?);
                let kinds = [ra.1, rb.1];
                if kinds.contains(&Reading::NumberAsName) && kinds.contains(&Reading::Position) {
                    let (name, pos) = if ra.1 == Reading::Position { (b, a) } else { (a, b) };
                    return Err(data_err(
                        path,
                        format!(
                            "column range '{part}' reads {} as a column's name and {} as a position (no column is named so): write both ends as names, or as positions where no column is named by a number",
                            name.trim(),
                            pos.trim()
                        ),
                    ));
                }
                let (lo, hi) = (note(a, ra), note(b, rb));
                if lo > hi {
                    let why = if kinds.contains(&Reading::NumberAsName) {
                        " (a number that names a column is read as that name)"
                    } else {
                        ""
                    };
                    return Err(data_err(path, format!("empty column range '{part}'{why}")));
                }
                out.extend(lo..=hi);
            }
            _ => {
                let r = read(part)?;
                out.push(note(part, r));
            }
        }
    }
    if out.is_empty() {
        return Err(data_err(path, format!("column selection '{spec}' selects nothing")));
    }
    if let Some(&j) = out.iter().enumerate().find(|&(i, j)| out[..i].contains(j)).map(|(_, j)| j) {
        return Err(data_err(
            path,
            format!("column selection '{spec}' selects column {j} ('{}') twice", table.columns[j]),
        ));
    }
    Ok(Selection { columns: out, numbers_as_names })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_selection_takes_names_indices_and_ranges_of_either() {
        let text = ",age,sex,bmi,x-1,target\n0,1,2,3,4,5\n1,6,7,8,9,10\n";
        let t = parse_csv(text, &CsvOptions::default()).unwrap();
        let p = Path::new("t.csv");
        let sel = |s: &str| select_columns(p, &t, s).map(|s| s.columns);
        assert_eq!(sel("age-bmi").unwrap(), vec![1, 2, 3]);
        assert_eq!(sel("1-3").unwrap(), vec![1, 2, 3]);
        assert_eq!(sel("sex-4,target").unwrap(), vec![2, 3, 4, 5]);
        // A name with a hyphen is the column, not a range.
        assert_eq!(sel("x-1").unwrap(), vec![4]);
        assert!(sel("bmi-age").unwrap_err().to_string().contains("empty column range 'bmi-age'"));
        assert!(sel("age-weight").unwrap_err().to_string().contains("no column named 'weight'"));
    }

    /// A missing value in a column declared a label is refused, not read as a category `NA`
    /// (pandas' markers: `NA`, `nan`, `None`, …); in a column of numbers it is named as missing.
    #[test]
    fn a_missing_value_in_a_label_column_is_refused() {
        let t = parse_csv("a,c,s\n0.1,1,x\n0.5,NA,y\n0.7,2,nan\n", &CsvOptions::default()).unwrap();
        let p = Path::new("t.csv");
        let e = t.select_labelled(p, &[0, 1], &[1]).unwrap_err().to_string();
        assert_eq!(
            e,
            "t.csv: line 3 (row 1), column 1 ('c'): 'NA' marks a missing value; every value is needed (drop or fill missing values)"
        );
        assert_eq!(t.select(p, &[1]).unwrap_err().to_string(), e);
        let e = t.select_labelled(p, &[2], &[2]).unwrap_err().to_string();
        assert!(e.contains("line 4 (row 2), column 2 ('s'): 'nan' marks a missing value"), "{e}");
        let ok = parse_csv("c\nx\ny\nx\n", &CsvOptions::default()).unwrap();
        assert_eq!(ok.select_labelled(p, &[0], &[0]).unwrap().0.as_slice(), &[0.0, 1.0, 0.0]);
    }

    #[test]
    fn numbers_read_as_names_at_other_positions_are_listed() {
        // pandas' `DataFrame(a).to_csv()`: the index, then integer column names.
        let text = ",0,1,2\n0,0.5,1.5,2.5\n1,3.5,4.5,5.5\n";
        let t = parse_csv(text, &CsvOptions::default()).unwrap();
        let p = Path::new("t.csv");
        let named = |v: &[(&str, usize)]| v.iter().map(|&(s, j)| (s.to_string(), j)).collect::<Vec<_>>();
        let s = select_columns(p, &t, "0,2").unwrap();
        assert_eq!(s.columns, vec![1, 3]);
        assert_eq!(s.numbers_as_names, named(&[("0", 1), ("2", 3)]));
        let r = select_columns(p, &t, "0-1").unwrap();
        assert_eq!((r.columns, r.numbers_as_names), (vec![1, 2], named(&[("0", 1), ("1", 2)])));
        // A range read half as names and half as positions is refused, as is a column twice.
        let e = select_columns(p, &t, "2-3").unwrap_err().to_string();
        assert!(e.contains("column range '2-3' reads 2 as a column's name and 3 as a position"), "{e}");
        let e = select_columns(p, &t, "0,1,0").unwrap_err().to_string();
        assert!(e.contains("selects column 1 ('0') twice"), "{e}");
        assert!(select_columns(p, &t, "0-2,1").is_err());
        // A number beyond the positions, or a name at its own position, is not ambiguous.
        assert_eq!(select_columns(p, &t, "Unnamed: 0").unwrap().numbers_as_names, vec![]);
        let u = parse_csv("0,1,x\n0.5,1.5,2.5\n", &CsvOptions::default()).unwrap();
        assert_eq!(select_columns(p, &u, "0,1").unwrap().numbers_as_names, vec![]);
        let w = parse_csv("a,b,c,7\n0.5,1.5,2.5,3.5\n", &CsvOptions::default()).unwrap();
        let s7 = select_columns(p, &w, "7").unwrap();
        assert_eq!((s7.columns, s7.numbers_as_names), (vec![3], vec![]));
    }

    #[test]
    fn pandas_range_index_names_are_a_header() {
        // `pd.DataFrame(np.array(...)).to_csv(index=False)`: the header is 0,1,2.
        let t = parse_csv("0,1,2\n5,6,7\n8,9,10\n", &CsvOptions::default()).unwrap();
        assert!(!t.header_guessed, "three cells: a header without a doubt");
        assert_eq!((t.values.nrows(), t.columns.clone()), (2, vec!["0".to_string(), "1".into(), "2".into()]));
        assert_eq!(t.values[(0, 0)], 5.0);
        // Any other numeric first row is data, and so are `0` and `0,1` above whole numbers (a
        // plausible data row of a column of counts or codes).
        for text in ["0,1,3\n5,6,7\n", "1,2,3\n5,6,7\n", "0,1\n5,6\n", "0.0,1.0,2.0\n5,6,7\n", "0\n5\n", "0,1\n0.5,6\n"]
        {
            assert_eq!(parse_csv(text, &CsvOptions::default()).unwrap().values.nrows(), 2, "{text:?}");
        }
        // `pd.Series(v).to_csv(index=False)` and a two-column frame of floats: the header is `0`
        // or `0,1`, each float written with a point or an exponent (or a decimal comma).
        for text in ["0\n0.25\n-1.5\n", "0,1\n0.5,1e-3\n2.0,3.5\n", "0;1\n0,5;-2,25\n1,0;3,5\n"] {
            let t = parse_csv(text, &CsvOptions::default()).unwrap();
            assert_eq!(t.values.nrows(), 2, "{text:?}");
            assert_eq!(t.columns[0], "0", "{text:?}");
            assert!(t.header_guessed, "{text:?}: the caller is told");
        }
        // Said explicitly, a header is never guessed.
        let no = CsvOptions { header: Header::No, ..CsvOptions::default() };
        assert_eq!(parse_csv("0,1,2\n5,6,7\n", &no).unwrap().values.nrows(), 2);
    }
}
