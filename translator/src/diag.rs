//! Diagnostics: a rule code, a message, a source position, rendered rustc-like
//! (`file:line:col`, the source line, a caret underline) or as one JSON line.

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
    /// The whole source line, without its line terminator.
    pub source_line: String,
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
        // one character for one, so the caret line still points right
        let chars: Vec<char> = self
            .source_line
            .chars()
            .map(|c| match c {
                '\t' => ' ',
                c if c.is_control() => '\u{FFFD}',
                c => c,
            })
            .collect();
        // a very long line is shown as a window around the column
        let col = self.col.saturating_sub(1) as usize;
        let start = col.saturating_sub(WINDOW / 2).min(chars.len());
        let end = (start + WINDOW).min(chars.len());
        let mut shown: String = chars[start..end].iter().collect();
        let mut caret_at = col - start.min(col);
        if start > 0 {
            shown.insert(0, '…');
            caret_at += 1;
        }
        if end < chars.len() {
            shown.push('…');
        }
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
            "{{\"severity\":\"{sev}\",\"code\":{},\"message\":{},\"file\":{},\"line\":{},\"col\":{},\"len\":{},\"source\":{},\"notes\":[{}]}}",
            json_str(self.code),
            json_str(&self.message),
            json_str(&self.file),
            self.line,
            self.col,
            self.len,
            json_str(&self.source_line),
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

/// Byte offset where each line of `source` starts.
/// How many characters of a source line a diagnostic shows at most.
const WINDOW: usize = 160;

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

pub fn line_starts(source: &str) -> Vec<u32> {
    std::iter::once(0)
        .chain(
            source
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        )
        .collect()
}

/// Collects diagnostics while a file is processed and resolves spans to
/// line/column only for the diagnostics actually reported.
pub struct Reporter<'a> {
    file: &'a str,
    source: &'a str,
    line_starts: Option<Vec<u32>>,
    pub diags: Vec<Diagnostic>,
}

impl<'a> Reporter<'a> {
    pub fn new(file: &'a str, source: &'a str) -> Self {
        Reporter {
            file,
            source,
            line_starts: None,
            diags: Vec::new(),
        }
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

    pub fn error_count(&self) -> usize {
        self.diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    fn push(
        &mut self,
        severity: Severity,
        span: Span,
        code: &'static str,
        message: String,
        notes: Vec<String>,
    ) {
        let source = self.source;
        let starts = self.line_starts.get_or_insert_with(|| line_starts(source));
        let start = (span.start as usize).min(source.len());
        let line_idx = starts.partition_point(|&s| s as usize <= start) - 1;
        let line_start = starts[line_idx] as usize;
        let line_end = source[line_start..]
            .find('\n')
            .map_or(source.len(), |e| line_start + e);
        let line_text = source[line_start..line_end].trim_end_matches('\r');
        let col = source[line_start..start].chars().count() as u32 + 1;
        let end = (span.end as usize).clamp(start, line_start + line_text.len());
        let len = source[start..end].chars().count().max(1) as u32;
        self.diags.push(Diagnostic {
            severity,
            code,
            message,
            file: self.file.to_string(),
            line: line_idx as u32 + 1,
            col,
            len,
            source_line: line_text.to_string(),
            notes,
        });
    }

    pub fn finish(mut self) -> Diagnostics {
        self.diags.sort_by_key(|d| (d.line, d.col));
        Diagnostics(self.diags)
    }
}
