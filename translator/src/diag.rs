//! Diagnostics: a rule code, a message, a source position, rendered rustc-like
//! (`file:line:col`, the source line, a caret underline) or as one JSON line.
//!
//! What one file can cost is bounded: a diagnostic keeps at most a window
//! of its source line ([`excerpt`]), a line reports at most
//! [`MAX_PER_LINE`] diagnostics of one code and a file at most
//! [`MAX_DIAGNOSTICS`]; the rest are counted in a note ("... and K more").
//! Lines end at `\n`, `\r\n` or a lone `\r`; a byte-order mark that starts
//! the file is not part of its first line.

use std::collections::HashMap;
use std::fmt::Write as _;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

/// A byte range in the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable kebab-case name of the violated rule (see `docs/diagnostics.md`).
    pub code: &'static str,
    pub message: String,
    pub file: String,
    /// 1-based line and column (column counts characters, tabs as one).
    pub line: u32,
    pub col: u32,
    /// Length of the underlined text on that line, in characters (at least 1).
    pub len: u32,
    /// The source line without its line terminator; a line of more than
    /// [`WINDOW`] + 6 characters as a window of [`WINDOW`] characters
    /// around the column, with `...` where it is cut ([`excerpt`]).
    pub source_line: String,
    /// The 1-based character position in `source_line` of the column `col`
    /// (equal to `col` unless the line was cut).
    pub source_col: u32,
    pub notes: Vec<String>,
}

/// All diagnostics of one file, sorted by position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter().filter(|d| d.severity == Severity::Error)
    }
    pub fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }
    pub fn render(&self) -> String {
        self.0.iter().map(|d| d.render()).collect()
    }
}

impl std::fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostics {}

impl Diagnostic {
    /// rustc-like rendering:
    /// ```text
    /// error[operand-width]: bitwidth of `dst` ... (16 bits)
    ///   --> kernel.pisa:12:9
    ///    |
    /// 12 |   iadd.32b %h0, %r1, %r2;
    ///    |            ^^^
    /// ```
    pub fn render(&self) -> String {
        let mut s = String::new();
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(s, "{sev}[{}]: {}", self.code, printable(&self.message));
        let num = self.line.to_string();
        let pad = " ".repeat(num.len());
        let file = printable(&self.file);
        let _ = writeln!(s, "{pad}--> {file}:{}:{}", self.line, self.col);
        let _ = writeln!(s, "{pad} |");
        // a very long line is shown as a window around the column (lines
        // the reporter made are cut already)
        let (line, caret_col) = excerpt(&self.source_line, self.source_col);
        // one character for one, so the caret line still points right
        let shown: String = line
            .chars()
            .map(|c| match c {
                '\t' => ' ',
                c if c.is_control() => '\u{FFFD}',
                c => c,
            })
            .collect();
        let caret_at = caret_col.saturating_sub(1) as usize;
        let caret_len = (self.len.max(1) as usize).min(WINDOW);
        let _ = writeln!(s, "{num} | {shown}");
        let _ = writeln!(
            s,
            "{pad} | {}{}",
            " ".repeat(caret_at),
            "^".repeat(caret_len)
        );
        for n in &self.notes {
            let _ = writeln!(s, "{pad} = note: {}", printable(n));
        }
        s
    }

    /// One JSON object on one line, for editors and tools.
    pub fn to_json(&self) -> String {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let notes: Vec<String> = self.notes.iter().map(|n| json_str(n)).collect();
        format!(
            "{{\"severity\":\"{sev}\",\"code\":{},\"message\":{},\"file\":{},\"line\":{},\"col\":{},\"len\":{},\"source\":{},\"source_col\":{},\"notes\":[{}]}}",
            json_str(self.code),
            json_str(&self.message),
            json_str(&self.file),
            self.line,
            self.col,
            self.len,
            json_str(&excerpt(&self.source_line, self.source_col).0),
            excerpt(&self.source_line, self.source_col).1,
            notes.join(",")
        )
    }
}

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// How many characters of a long source line a diagnostic keeps.
pub const WINDOW: usize = 160;

/// Diagnostics of one code that one line reports at most; the rest are
/// counted in a note on the last one.
pub const MAX_PER_LINE: usize = 10;

/// Diagnostics that one file reports at most; the rest are counted in a
/// note on the last one.
pub const MAX_DIAGNOSTICS: usize = 10_000;

/// The part of `line` a diagnostic shows, and the 1-based character
/// position of column `col` in it: the whole line when it has at most
/// [`WINDOW`] + 6 characters, else [`WINDOW`] characters around the column
/// with `...` where the line is cut.
pub fn excerpt(line: &str, col: u32) -> (std::borrow::Cow<'_, str>, u32) {
    let n = line.chars().count();
    if n <= WINDOW + 6 {
        return (line.into(), col);
    }
    let c = col.saturating_sub(1) as usize;
    let start = c.saturating_sub(WINDOW / 2).min(n - WINDOW);
    let end = start + WINDOW;
    let mut s = String::with_capacity(WINDOW + 6);
    let mut pos = c - start + 1;
    if start > 0 {
        s.push_str("...");
        pos += 3;
    }
    s.extend(line.chars().skip(start).take(WINDOW));
    if end < n {
        s.push_str("...");
    }
    (s.into(), u32::try_from(pos).unwrap_or(u32::MAX))
}

/// `s` cut to at most `max` characters, with `...` where it is cut (for
/// source text quoted in a message).
pub fn shorten(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => s.into(),
        Some((i, _)) => format!("{}...", &s[..i]).into(),
    }
}

/// Text as a terminal may show it: control characters (which could move the
/// cursor or retitle the terminal) as `\u{..}` escapes.
fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() && c != '\t') {
        return s.into();
    }
    s.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect::<String>()
        .into()
}

/// 1-based line and byte column of byte `offset`, given where each line
/// starts ([`line_starts`]).
pub fn line_col(line_starts: &[u32], offset: u32) -> (u32, u32) {
    let line = line_starts.partition_point(|&s| s <= offset).max(1);
    let start = line_starts.get(line - 1).copied().unwrap_or(0);
    (line as u32, offset.saturating_sub(start) + 1)
}

/// Byte offset where each line of `source` starts. Lines end at `\n`,
/// `\r\n` or a lone `\r`; the first line starts after a byte-order mark.
pub fn line_starts(source: &str) -> Vec<u32> {
    let b = source.as_bytes();
    let first = if source.starts_with('\u{FEFF}') { 3 } else { 0 };
    let mut starts = vec![first];
    let mut at = |i: usize| {
        let c = b[i];
        if c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n')) {
            starts.push(i as u32 + 1);
        }
    };
    // eight bytes at a time: most words of a source hold no line break
    let mut i = 0;
    while i + 8 <= b.len() {
        let word = u64::from_le_bytes(b[i..i + 8].try_into().expect("eight bytes"));
        if has_byte(word, b'\n') || has_byte(word, b'\r') {
            (i..i + 8).for_each(&mut at);
        }
        i += 8;
    }
    (i..b.len()).for_each(at);
    starts
}

/// Whether one of the eight bytes of `word` is `byte` (the exact test for
/// a zero byte of `word ^ byte` repeated).
fn has_byte(word: u64, byte: u8) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = word ^ (ONES * byte as u64);
    x.wrapping_sub(ONES) & !x & (ONES << 7) != 0
}

/// Collects diagnostics while a file is processed and resolves spans to
/// line/column only for the diagnostics actually reported. Beyond
/// [`MAX_PER_LINE`] diagnostics of one code on one line, and beyond
/// [`MAX_DIAGNOSTICS`] in all, diagnostics are only counted.
pub struct Reporter<'a> {
    file: &'a str,
    source: &'a str,
    line_starts: Option<Vec<u32>>,
    pub diags: Vec<Diagnostic>,
    /// Diagnostics per (0-based line, code), kept or not.
    per_line: HashMap<(usize, &'static str), usize>,
    /// Diagnostics left out because the file reached [`MAX_DIAGNOSTICS`].
    dropped: usize,
    /// Every diagnostic reported, kept or not ([`Reporter::reported`]).
    reported: usize,
}

impl<'a> Reporter<'a> {
    pub fn new(file: &'a str, source: &'a str) -> Self {
        Reporter {
            file,
            source,
            line_starts: None,
            diags: Vec::new(),
            per_line: HashMap::new(),
            dropped: 0,
            reported: 0,
        }
    }

    /// How many diagnostics were reported so far, kept or not: a check
    /// that reported none is clean (the validator caches clean results).
    pub fn reported(&self) -> usize {
        self.reported
    }

    pub fn error(&mut self, span: Span, code: &'static str, message: impl Into<String>) {
        self.push(Severity::Error, span, code, message.into(), Vec::new());
    }

    pub fn error_with_note(
        &mut self,
        span: Span,
        code: &'static str,
        message: impl Into<String>,
        note: impl Into<String>,
    ) {
        self.push(
            Severity::Error,
            span,
            code,
            message.into(),
            vec![note.into()],
        );
    }

    pub fn warning(&mut self, span: Span, code: &'static str, message: impl Into<String>) {
        self.push(Severity::Warning, span, code, message.into(), Vec::new());
    }

    /// Errors reported (and kept) so far.
    pub fn error_count(&self) -> usize {
        self.diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// The 0-based line of byte `offset`, where that line starts, and
    /// `offset` clamped to the line start (in time logarithmic in the
    /// number of lines, whatever their length).
    fn line_of(&mut self, offset: usize) -> (usize, usize, usize) {
        let source = self.source;
        let starts = self.line_starts.get_or_insert_with(|| line_starts(source));
        let offset = offset.min(source.len());
        let idx = starts
            .partition_point(|&s| s as usize <= offset)
            .saturating_sub(1);
        let line_start = (starts[idx] as usize).min(source.len());
        (idx, line_start, offset.max(line_start))
    }

    /// Where the line that starts at `line_start` ends (before its terminator).
    fn line_end(&self, line_start: usize) -> usize {
        self.source[line_start..]
            .find(['\n', '\r'])
            .map_or(self.source.len(), |e| line_start + e)
    }

    /// 1-based line and character column of the start of `span`.
    pub fn line_col(&mut self, span: Span) -> (u32, u32) {
        let (idx, line_start, start) = self.line_of(span.start as usize);
        let col = self.source[line_start..start].chars().count() + 1;
        (idx as u32 + 1, col as u32)
    }

    fn push(
        &mut self,
        severity: Severity,
        span: Span,
        code: &'static str,
        message: String,
        notes: Vec<String>,
    ) {
        self.reported += 1;
        let (idx, line_start, start) = self.line_of(span.start as usize);
        let seen = self.per_line.entry((idx, code)).or_default();
        *seen += 1;
        if *seen > MAX_PER_LINE {
            return;
        }
        if self.diags.len() >= MAX_DIAGNOSTICS {
            self.dropped += 1;
            return;
        }
        let source = self.source;
        let line_end = self.line_end(line_start);
        let line_text = &source[line_start..line_end];
        let col = source[line_start..start.min(line_end)].chars().count() as u32 + 1;
        let end = (span.end as usize).clamp(start.min(line_end), line_end);
        let len = source[start.min(line_end)..end].chars().count().max(1) as u32;
        let (source_line, source_col) = excerpt(line_text, col);
        self.diags.push(Diagnostic {
            severity,
            code,
            message,
            file: self.file.to_string(),
            line: idx as u32 + 1,
            col,
            len,
            source_line: source_line.into_owned(),
            source_col,
            notes,
        });
    }

    pub fn finish(mut self) -> Diagnostics {
        // the last diagnostic kept of a folded (line, code) says how many more
        for (&(idx, code), &n) in &self.per_line {
            if n <= MAX_PER_LINE {
                continue;
            }
            let line = idx as u32 + 1;
            let last = self
                .diags
                .iter_mut()
                .filter(|d| d.line == line && d.code == code)
                .max_by_key(|d| d.col);
            if let Some(d) = last {
                d.notes.push(format!(
                    "... and {} more `{code}` diagnostics on this line (at most {MAX_PER_LINE} are shown)",
                    n - MAX_PER_LINE
                ));
            }
        }
        self.diags.sort_by_key(|d| (d.line, d.col));
        if self.dropped > 0 {
            if let Some(d) = self.diags.last_mut() {
                d.notes.push(format!(
                    "... and {} more diagnostics in this file (at most {MAX_DIAGNOSTICS} are reported)",
                    self.dropped
                ));
            }
        }
        Diagnostics(self.diags)
    }
}

#[cfg(test)]
mod tests {
    use super::line_starts;

    /// The byte-at-a-time definition [`line_starts`] skips words of.
    fn naive(source: &str) -> Vec<u32> {
        let b = source.as_bytes();
        let first = if source.starts_with('\u{FEFF}') { 3 } else { 0 };
        std::iter::once(first)
            .chain(
                b.iter()
                    .enumerate()
                    .filter(|&(i, &c)| c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n')))
                    .map(|(i, _)| i as u32 + 1),
            )
            .collect()
    }

    #[test]
    fn line_starts_match_the_definition() {
        // every break kind at every offset within and across 8-byte words
        let pieces = [
            "\n", "\r", "\r\n", "\n\r", "abc", "x", "\u{FEFF}", "é", "abcdefgh",
        ];
        let mut seed = 7u32;
        for len in 0..400 {
            let mut s = String::new();
            for _ in 0..len % 40 {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                s.push_str(pieces[(seed >> 16) as usize % pieces.len()]);
            }
            assert_eq!(line_starts(&s), naive(&s), "{s:?}");
        }
    }
}
