//! Where a span of a module's text came from: which input file, which line
//! and column. A module assembled from one file maps to itself; a linked
//! module ([`crate::link`]) is text spliced from several files (with
//! renamed symbols and dropped `.import` declarations), and its pieces map
//! each offset back to the file the user wrote, so that every later error
//! (translation, the reference device's run-time reports, SPIR-V debug
//! lines) names the original file and line.

use crate::diag::Span;

/// One input file: its name as diagnostics print it and where its lines start.
#[derive(Debug, Clone, Default)]
pub struct SourceFile {
    pub name: String,
    pub line_starts: Vec<u32>,
}

/// A run of the module's text that starts at `at` and came from `file`:
/// copied verbatim from offset `from` on, or (not `verbatim`) written by
/// the linker in place of the file's text at `from` (a renamed symbol, the
/// linked header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub at: u32,
    pub file: u16,
    pub from: u32,
    pub verbatim: bool,
}

/// A position in an input file: index into [`SourceMap::files`], 1-based
/// line and byte column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub file: u16,
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    /// The input files, in the order they were given.
    pub files: Vec<SourceFile>,
    /// The module's text as pieces, by increasing `at`; empty when the text
    /// is `files[0]` itself.
    pub pieces: Vec<Piece>,
}

impl SourceMap {
    /// The map of a module that is one file's text.
    pub fn single(name: &str, text: &str) -> SourceMap {
        SourceMap {
            files: vec![SourceFile {
                name: name.to_string(),
                line_starts: crate::diag::line_starts(text),
            }],
            pieces: Vec::new(),
        }
    }

    /// Where the start of `span` came from.
    pub fn locate(&self, span: Span) -> Location {
        let (file, offset) = self.origin(span.start);
        let (line, col) = match self.files.get(file as usize) {
            Some(f) => crate::diag::line_col(&f.line_starts, offset),
            None => (1, 1),
        };
        Location { file, line, col }
    }

    /// The input file and its byte offset for an offset of the module's text.
    pub fn origin(&self, offset: u32) -> (u16, u32) {
        let i = self.pieces.partition_point(|p| p.at <= offset);
        match i.checked_sub(1).map(|i| self.pieces[i]) {
            None => (0, offset),
            Some(p) if p.verbatim => (p.file, p.from + (offset - p.at)),
            Some(p) => (p.file, p.from),
        }
    }

    /// The name of input file `file` (as [`Location::file`] gives it).
    pub fn file_name(&self, file: u16) -> &str {
        self.files
            .get(file as usize)
            .map_or("", |f| f.name.as_str())
    }

    /// The name of the file `span` came from.
    pub fn file_of(&self, span: Span) -> &str {
        self.file_name(self.locate(span).file)
    }

    /// 1-based line and byte column of `span` in the file it came from.
    pub fn line_col(&self, span: Span) -> (u32, u32) {
        let l = self.locate(span);
        (l.line, l.col)
    }

    /// `file:line:col` of `span`.
    pub fn describe(&self, span: Span) -> String {
        let l = self.locate(span);
        format!("{}:{}:{}", self.file_name(l.file), l.line, l.col)
    }

    /// The name the whole program goes by: its first file.
    pub fn program_name(&self) -> &str {
        self.file_name(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_map_back_to_their_files() {
        let map = SourceMap {
            files: vec![
                SourceFile {
                    name: "a.pisa".into(),
                    line_starts: crate::diag::line_starts("l1\nl2\n"),
                },
                SourceFile {
                    name: "b.pisa".into(),
                    line_starts: crate::diag::line_starts("m1\nm2\nm3\n"),
                },
            ],
            pieces: vec![
                Piece {
                    at: 0,
                    file: 0,
                    from: 0,
                    verbatim: true,
                },
                Piece {
                    at: 6,
                    file: 1,
                    from: 3,
                    verbatim: true,
                },
                Piece {
                    at: 8,
                    file: 1,
                    from: 5,
                    verbatim: false,
                },
                Piece {
                    at: 12,
                    file: 1,
                    from: 6,
                    verbatim: true,
                },
            ],
        };
        assert_eq!(map.describe(Span::new(4, 5)), "a.pisa:2:2");
        assert_eq!(map.describe(Span::new(6, 7)), "b.pisa:2:1");
        // inside a piece the linker wrote: where the replaced text started
        assert_eq!(map.describe(Span::new(10, 11)), "b.pisa:2:3");
        assert_eq!(map.describe(Span::new(13, 14)), "b.pisa:3:2");
        assert_eq!(
            SourceMap::single("k.pisa", "x\ny").describe(Span::new(2, 3)),
            "k.pisa:2:1"
        );
    }
}
