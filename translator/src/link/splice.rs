//! The linked text: one header, then each module's text as the user wrote
//! it (comments and layout kept) without its `.version`/`.target` and its
//! `.import` declarations, and with renamed internal symbols spelled anew.
//! Every run of text is recorded as a [`Piece`], so positions in the linked
//! text map back to the input files.

use super::symbols::Plan;
use super::Input;
use crate::diag::Span;
use crate::source_map::Piece;
use crate::syntax::ast::HeaderStmt;
use crate::syntax::lexer::{Lexer, Tok};
use crate::syntax::parser::decode_quoted_name;
use crate::Module;

struct Out {
    text: String,
    pieces: Vec<Piece>,
}

impl Out {
    /// Text the linker writes, standing for `from` in file `file`.
    fn write(&mut self, s: &str, file: usize, from: u32) {
        self.piece(file, from, false);
        self.text.push_str(s);
    }
    /// Text copied from `src[from..to]` of file `file`.
    fn copy(&mut self, src: &str, file: usize, from: usize, to: usize) {
        if from < to {
            self.piece(file, from as u32, true);
            self.text.push_str(&src[from..to]);
        }
    }
    fn piece(&mut self, file: usize, from: u32, verbatim: bool) {
        self.pieces.push(Piece {
            at: self.text.len() as u32,
            file: file as u16,
            from,
            verbatim,
        });
    }
}

/// The linked text and where each of its pieces came from.
pub fn splice(modules: &[Module], inputs: &[Input], plan: &Plan) -> (String, Vec<Piece>) {
    let mut out = Out {
        text: String::new(),
        pieces: Vec::new(),
    };
    let names: Vec<&str> = inputs.iter().map(|i| i.name).collect();
    let version_at = header_cuts(&modules[0]).first().map_or(0, |c| c.0) as u32;
    out.write(
        &format!(
            "// linked by pisa from {}\n.version {};\n.target {};\n",
            names.join(", "),
            plan.version,
            plan.target
        ),
        0,
        version_at,
    );
    for (i, (m, input)) in modules.iter().zip(inputs).enumerate() {
        let src = input.text;
        out.write(&format!("\n// ---- {}\n", input.name), i, 0);
        // cuts: (start, end) byte ranges left out, by increasing start
        let mut cuts = header_cuts(m);
        for s in &plan.dropped_imports[i] {
            cuts.push((s.start as usize, statement_end(src, s.start as usize)));
        }
        cuts.sort_unstable();
        let renames = &plan.renames[i];
        let mut lexer = Lexer::new(src);
        let mut copied = 0;
        let mut cut = cuts.iter().peekable();
        loop {
            let t = lexer.next_token();
            if t.kind == Tok::Eof {
                break;
            }
            let (start, end) = (t.span.start as usize, t.span.end as usize);
            if start < copied {
                continue;
            }
            if let Some(&&(from, to)) = cut.peek() {
                if start >= from {
                    out.copy(src, i, copied, from);
                    copied = to;
                    cut.next();
                    continue;
                }
            }
            if t.kind != Tok::Sym {
                continue;
            }
            let name = symbol_name(&src[start..end]);
            if let Some(new) = renames.get(&name) {
                out.copy(src, i, copied, start);
                out.write(&symbol_text(new), i, start as u32);
                copied = end;
            }
        }
        out.copy(src, i, copied, src.len());
        if !out.text.ends_with('\n') {
            out.write("\n", i, src.len() as u32);
        }
    }
    (out.text, out.pieces)
}

/// The `.version`/`.target` statements of a module (each through its `;`).
fn header_cuts(m: &Module) -> Vec<(usize, usize)> {
    m.ast
        .header_order
        .iter()
        .filter_map(|h| match h {
            HeaderStmt::Version(_, s) | HeaderStmt::Target(_, s) => Some(*s),
            HeaderStmt::Other(_) => None,
        })
        .map(|s: Span| (s.start as usize, statement_end(&m.source, s.start as usize)))
        .collect()
}

/// The end of the statement starting at `start`: just past its `;` (and
/// the line break after it, so no blank line is left).
fn statement_end(src: &str, start: usize) -> usize {
    let mut lexer = Lexer::starting_at(src, start);
    let end = loop {
        let t = lexer.next_token();
        if t.kind == Tok::Eof {
            break src.len();
        }
        if t.kind == Tok::Semi && t.span.start as usize >= start {
            break t.span.end as usize;
        }
    };
    let rest = &src[end..];
    let line = rest.len() - rest.trim_start_matches([' ', '\t', '\r']).len();
    if rest[line..].starts_with('\n') {
        end + line + 1
    } else {
        end
    }
}

/// The name an `@name` or `@"quoted"` token stands for.
fn symbol_name(token: &str) -> String {
    let s = &token[1..];
    match s.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
        Some(q) => decode_quoted_name(q),
        None => s.to_string(),
    }
}

/// How a symbol name is written: `@name`, or quoted where it is not an
/// identifier (05 §1.3), with the escapes the assembler decodes.
pub fn symbol_text(name: &str) -> String {
    let plain = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'$' || b == b'_' || b == b'.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'$' || b == b'_' || b == b'.');
    if plain {
        return format!("@{name}");
    }
    let mut s = String::from("@\"");
    for c in name.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                s.push_str(&format!("\\{:02X}", c as u32))
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}
