//! A byte-oriented lexer. Identifiers follow the spec's `[a-zA-Z$._][a-zA-Z$._0-9]*`
//! (so mnemonics such as `ld.global.v4.32b` and names such as `@fcmp.ord.oeq`
//! are single tokens); directives and qualifiers after a space (`.reg`, `.v4`,
//! `.32b`) are split at dots so that `.v4.32b` reads as two type tokens.

use crate::diag::Span;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    /// `.name` (without dots inside).
    Directive,
    /// `%name` (dots allowed; a trailing swizzle is split off by the parser).
    Reg,
    /// `@name`.
    Sym,
    /// Bare identifier: mnemonic, label, keyword (`void`), attribute value.
    Ident,
    /// Anything starting with a digit: integers, floats, `0.1`, `100ca`.
    Number,
    /// A `"..."` string.
    Str,
    Comma,
    Semi,
    Colon,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    LParen,
    RParen,
    Plus,
    Minus,
    Bang,
    Lt,
    Gt,
    Tilde,
    Eq,
    /// A byte that starts no token; reported by the parser.
    Error,
    Eof,
}

#[derive(Debug, Clone, Copy)]
pub struct Token {
    pub kind: Tok,
    pub span: Span,
}

/// Character classes by byte, looked up once per byte of a name (a large
/// module is mostly names): bit 0 starts an identifier, bit 1 continues
/// one, bit 2 continues a directive.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let alpha = c.is_ascii_alphabetic();
        let other = c == b'$' || c == b'_';
        if alpha || other || c == b'.' {
            t[b] |= 1;
        }
        if alpha || other || c == b'.' || c.is_ascii_digit() {
            t[b] |= 2;
        }
        if alpha || other || c.is_ascii_digit() {
            t[b] |= 4;
        }
        b += 1;
    }
    t
};

fn is_ident_start(b: u8) -> bool {
    CLASS[b as usize] & 1 != 0
}

fn is_ident_char(b: u8) -> bool {
    CLASS[b as usize] & 2 != 0
}

fn is_directive_char(b: u8) -> bool {
    CLASS[b as usize] & 4 != 0
}

/// Produces tokens on demand, so a large file never holds a token array.
pub struct Lexer<'s> {
    src: &'s [u8],
    pos: usize,
}

impl<'s> Lexer<'s> {
    pub fn new(src: &'s str) -> Self {
        Self::starting_at(src, 0)
    }

    /// A lexer that starts at byte `pos` of `src` (a token boundary).
    pub fn starting_at(src: &'s str, pos: usize) -> Self {
        Lexer {
            src: src.as_bytes(),
            pos,
        }
    }

    /// [`Lexer::next_token`] written into `out`: a token returned through
    /// memory and read back at once as wider words stalls the load that
    /// reads it (a store-forwarding stall per token, a tenth of parsing a
    /// large module); written in place it is read long after.
    #[inline(never)]
    pub fn next_into(&mut self, out: &mut Token) {
        *out = self.next_token();
    }

    #[inline(always)]
    pub fn next_token(&mut self) -> Token {
        let b = self.src;
        let mut i = self.pos;
        while i < b.len() {
            let c = b[i];
            let start = i;
            let kind = match c {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0c | 0x0b => {
                    i += 1;
                    continue;
                }
                // a byte-order mark that starts the file
                0xEF if i == 0 && b.starts_with(b"\xEF\xBB\xBF") => {
                    i += 3;
                    continue;
                }
                // to the end of the line: `\n`, `\r\n` or a lone `\r`
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    while i < b.len() && b[i] != b'\n' && b[i] != b'\r' {
                        i += 1;
                    }
                    continue;
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    i += 2;
                    while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                        i += 1;
                    }
                    i = (i + 2).min(b.len());
                    continue;
                }
                b'.' if b.get(i + 1).is_some_and(|&n| is_directive_char(n)) => {
                    i += 1;
                    while i < b.len() && is_directive_char(b[i]) {
                        i += 1;
                    }
                    Tok::Directive
                }
                // LLVM prints mangled names quoted: @"\01?f@@YAXXZ"
                b'@' if b.get(i + 1) == Some(&b'"') => {
                    i += 2;
                    while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    if i < b.len() && b[i] == b'"' {
                        i += 1;
                        Tok::Sym
                    } else {
                        i = i.min(b.len());
                        Tok::Error
                    }
                }
                b'%' | b'@' => {
                    i += 1;
                    while i < b.len() && is_ident_char(b[i]) {
                        i += 1;
                    }
                    if c == b'%' {
                        Tok::Reg
                    } else {
                        Tok::Sym
                    }
                }
                b'0'..=b'9' => {
                    i += 1;
                    while i < b.len() {
                        let d = b[i];
                        if d.is_ascii_alphanumeric()
                            || d == b'.'
                            || d == b'_'
                            || ((d == b'+' || d == b'-')
                                && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P')
                                && !is_hex_int_prefix(&b[start..i]))
                        {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                    Tok::Number
                }
                b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                        i += 1;
                    }
                    if i < b.len() && b[i] == b'"' {
                        i += 1;
                        Tok::Str
                    } else {
                        Tok::Error
                    }
                }
                c if is_ident_start(c) => {
                    i += 1;
                    while i < b.len() && is_ident_char(b[i]) {
                        i += 1;
                    }
                    Tok::Ident
                }
                b',' => single(&mut i, Tok::Comma),
                b';' => single(&mut i, Tok::Semi),
                b':' => single(&mut i, Tok::Colon),
                b'{' => single(&mut i, Tok::LBrace),
                b'}' => single(&mut i, Tok::RBrace),
                b'[' => single(&mut i, Tok::LBracket),
                b']' => single(&mut i, Tok::RBracket),
                b'(' => single(&mut i, Tok::LParen),
                b')' => single(&mut i, Tok::RParen),
                b'+' => single(&mut i, Tok::Plus),
                b'-' => single(&mut i, Tok::Minus),
                b'!' => single(&mut i, Tok::Bang),
                b'<' => single(&mut i, Tok::Lt),
                b'>' => single(&mut i, Tok::Gt),
                b'~' => single(&mut i, Tok::Tilde),
                b'=' => single(&mut i, Tok::Eq),
                _ => {
                    // one whole UTF-8 character, so spans stay on char boundaries
                    i += 1;
                    while i < b.len() && (b[i] & 0xC0) == 0x80 {
                        i += 1;
                    }
                    Tok::Error
                }
            };
            self.pos = i;
            return Token {
                kind,
                span: Span::new(start, i),
            };
        }
        self.pos = i;
        Token {
            kind: Tok::Eof,
            span: Span::new(b.len(), b.len()),
        }
    }
}

/// All tokens of `src`, ending with [`Tok::Eof`].
pub fn lex(src: &str) -> Vec<Token> {
    let mut l = Lexer::new(src);
    let mut v = Vec::new();
    loop {
        let t = l.next_token();
        v.push(t);
        if t.kind == Tok::Eof {
            return v;
        }
    }
}

/// `0x1e-5` is the hex integer 0x1e minus 5, not a float exponent.
fn is_hex_int_prefix(s: &[u8]) -> bool {
    s.len() > 2
        && s[0] == b'0'
        && (s[1] | 0x20) == b'x'
        && !s.iter().any(|&c| c == b'.' || (c | 0x20) == b'p')
}

fn single(i: &mut usize, t: Tok) -> Tok {
    *i += 1;
    t
}
