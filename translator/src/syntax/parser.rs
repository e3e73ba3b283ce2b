//! Recursive-descent parser with statement-level error recovery: a malformed
//! statement is reported once and skipped up to its `;` (or the enclosing `}`),
//! so one file yields all its independent syntax errors.

use super::ast::*;
use super::lexer::{Lexer, Tok, Token};
use crate::diag::{shorten, Reporter, Span};

/// Largest number of names one `%r<A~B>` range may declare.
pub const MAX_RANGE: u64 = 1 << 20;

pub fn parse(src: &str, rep: &mut Reporter) -> SourceAst {
    let mut lexer = Lexer::new(src);
    let cur = lexer.next_token();
    let next = lexer.next_token();
    let mut p = Parser {
        depth: 0,
        src,
        lexer,
        cur,
        next,
        prev: Span::default(),
        rep,
        interner: Interner::default(),
        operands: Vec::new(),
        short_names: Box::new([(0, 0); SHORT_NAMES]),
    };
    let (items, header_order) = p.module();
    SourceAst {
        interner: p.interner,
        items,
        header_order,
    }
}

struct Parser<'s, 'r, 'a> {
    src: &'s str,
    lexer: Lexer<'s>,
    /// The current token and one of lookahead.
    cur: Token,
    next: Token,
    /// Span of the last token consumed.
    prev: Span,
    rep: &'r mut Reporter<'a>,
    interner: Interner,
    /// `{ }` blocks open around the current token.
    depth: usize,
    /// The operand lists being parsed (a call's arguments after its
    /// instruction's operands before it), each moved out into a vector of
    /// its exact length when complete ([`Parser::operand_list`]).
    operands: Vec<Operand>,
    /// Short names interned lately, by their bytes ([`Parser::intern`]).
    short_names: Box<[(u64, u32); SHORT_NAMES]>,
}

/// Slots of [`Parser::intern`]'s table of short names.
const SHORT_NAMES: usize = 256;

/// How deep `{ }` blocks may nest (docs/spec-notes.md): every later stage
/// walks blocks recursively, so a limit keeps deep input from overflowing
/// the stack; compilers nest a handful of levels.
pub const MAX_BLOCK_DEPTH: usize = 256;

/// A syntax error already reported; the caller recovers.
struct Fail;
type PResult<T> = Result<T, Fail>;

impl<'s> Parser<'s, '_, '_> {
    fn peek(&self) -> Token {
        self.cur
    }
    /// `k` is 0 or 1: one token of lookahead.
    fn peek_at(&self, k: usize) -> Token {
        if k == 0 {
            self.cur
        } else {
            self.next
        }
    }
    fn kind(&self) -> Tok {
        self.cur.kind
    }
    fn text(&self, t: Token) -> &'s str {
        let src: &'s str = self.src;
        &src[t.span.start as usize..t.span.end as usize]
    }
    fn bump(&mut self) -> Token {
        let t = self.cur;
        if t.kind != Tok::Eof {
            self.prev = t.span;
            self.cur = self.next;
            self.lexer.next_into(&mut self.next);
        }
        t
    }
    fn at_directive(&self, name: &str) -> bool {
        let t = self.peek();
        t.kind == Tok::Directive && &self.text(t)[1..] == name
    }
    fn eat(&mut self, k: Tok) -> Option<Token> {
        (self.kind() == k).then(|| self.bump())
    }
    fn describe(&self, t: Token) -> String {
        let text = self.text(t);
        match t.kind {
            Tok::Eof => "end of file".to_string(),
            Tok::Error => match text.chars().next() {
                Some(c) if c.len_utf8() == text.len() => describe_char(c),
                _ => format!("`{}` (a quote that is never closed)", shorten(text, 40)),
            },
            _ => format!("`{}`", shorten(text, 40)),
        }
    }
    fn err<T>(&mut self, what: &str) -> PResult<T> {
        let t = self.peek();
        let msg = format!("expected {what}, found {}", self.describe(t));
        self.rep.error(t.span, "syntax", msg);
        Err(Fail)
    }
    fn expect(&mut self, k: Tok, what: &str) -> PResult<Token> {
        match self.eat(k) {
            Some(t) => Ok(t),
            None => self.err(what),
        }
    }

    /// Skips to just after the next `;` at this nesting level, or to (not past)
    /// a `}` that closes the enclosing block.
    fn recover(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.kind() {
                Tok::Eof => return,
                Tok::Semi if depth == 0 => {
                    self.bump();
                    return;
                }
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                    if depth == 0 {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Zero or more `item`s separated by commas, up to (not including) `end`.
    fn comma_list<T>(
        &mut self,
        end: Tok,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut v = Vec::new();
        if self.kind() != end {
            loop {
                v.push(item(self)?);
                if self.eat(Tok::Comma).is_none() {
                    break;
                }
            }
        }
        Ok(v)
    }

    /// [`Parser::comma_list`] of operands, in a vector of the list's exact
    /// length (a large module has a million: no spare room in each).
    fn operand_list(&mut self, end: Tok) -> PResult<Vec<Operand>> {
        let base = self.operands.len();
        let mut result = Ok(());
        if self.kind() != end {
            loop {
                match self.operand() {
                    Ok(op) => self.operands.push(op),
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
                if self.eat(Tok::Comma).is_none() {
                    break;
                }
            }
        }
        let list: Vec<Operand> = self.operands.drain(base..).collect();
        result.map(|()| list)
    }

    /// [`Interner::intern`], through a table of the short names seen
    /// lately: a large module names a few registers in every instruction,
    /// and a name of up to 7 bytes is then found by one comparison of its
    /// bytes as a number instead of a hash, a probe and a string compare.
    fn intern(&mut self, s: &str) -> Name {
        let b = s.as_bytes();
        if b.is_empty() || b.len() > 7 {
            return self.interner.intern(s);
        }
        // the bytes and the length: distinct for distinct names, never 0
        // (built in a register: bytes stored and read back as a number
        // stall the load)
        let mut key = (b.len() as u64) << 56;
        for (i, &c) in b.iter().enumerate() {
            key |= (c as u64) << (8 * i);
        }
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % SHORT_NAMES;
        let (known, name) = self.short_names[slot];
        if known == key {
            return Name(name);
        }
        let n = self.interner.intern(s);
        self.short_names[slot] = (key, n.0);
        n
    }

    fn name(&mut self, t: Token) -> Name {
        let s = &self.src[t.span.start as usize + 1..t.span.end as usize];
        match s.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
            Some(quoted) => {
                let decoded = decode_quoted_name(quoted);
                self.interner.intern(&decoded)
            }
            None => self.intern(s),
        }
    }

    // ---------------------------------------------------------------- module

    fn module(&mut self) -> (Vec<Item>, Vec<HeaderStmt>) {
        let mut items = Vec::new();
        let mut order = Vec::new();
        while self.kind() != Tok::Eof {
            let start = self.peek().span;
            if self.at_directive("version") || self.at_directive("target") {
                let is_version = self.at_directive("version");
                self.bump();
                let v = self.peek();
                if !matches!(v.kind, Tok::Number | Tok::Ident) {
                    let _ = self.err::<()>("a version or target value");
                    self.recover();
                    continue;
                }
                self.bump();
                let text = self.text(v).to_string();
                let span = start.to(v.span);
                order.push(if is_version {
                    HeaderStmt::Version(text, span)
                } else {
                    HeaderStmt::Target(text, span)
                });
                if self.expect(Tok::Semi, "`;`").is_err() {
                    self.recover();
                }
                continue;
            }
            order.push(HeaderStmt::Other(start));
            if self.at_directive("reg") || self.at_directive("pred") {
                // a whole statement in the wrong place: the next one is in step
                self.rep.error(
                    start,
                    "space-scope",
                    "registers and predicates are declared inside kernels and functions",
                );
                self.recover();
                continue;
            }
            match self.item() {
                Ok(item) => items.push(item),
                Err(Fail) => {
                    self.recover();
                    // what follows a broken declaration up to the next one
                    // (the rest of a body whose header broke, stray `}`s) is
                    // skipped unreported: it would only repeat the error
                    while self.kind() != Tok::Eof && !self.at_item_start() {
                        self.bump();
                    }
                }
            }
        }
        (items, order)
    }

    /// A directive that starts a module-scope statement.
    fn at_item_start(&self) -> bool {
        let t = self.peek();
        t.kind == Tok::Directive
            && matches!(
                &self.text(t)[1..],
                "version"
                    | "target"
                    | "global"
                    | "const"
                    | "function"
                    | "kernel"
                    | "export"
                    | "import"
            )
    }

    fn item(&mut self) -> PResult<Item> {
        let start = self.peek().span;
        let linkage = self.linkage_directive().unwrap_or_default();
        let t = self.peek();
        if t.kind != Tok::Directive {
            return self.err("a declaration (`.global`, `.const`, `.function`, `.kernel`, ...)");
        }
        match &self.text(t)[1..] {
            "function" | "kernel" => self.func(start, linkage).map(Item::Func),
            _ => match self.space_of(t) {
                Some(space) => {
                    self.bump();
                    self.var_decl(start, space, t.span, linkage).map(Item::Var)
                }
                None => {
                    self.err("a declaration (`.global`, `.const`, `.function`, `.kernel`, ...)")
                }
            },
        }
    }

    /// Consumes `.export` / `.import` (wherever a producer places it).
    fn linkage_directive(&mut self) -> Option<Linkage> {
        let l = if self.at_directive("export") {
            Linkage::Export
        } else if self.at_directive("import") {
            Linkage::Import
        } else {
            return None;
        };
        self.bump();
        Some(l)
    }

    fn space_of(&self, t: Token) -> Option<Space> {
        if t.kind != Tok::Directive {
            return None;
        }
        Some(match &self.text(t)[1..] {
            "global" => Space::Global,
            "const" => Space::Const,
            "shared" => Space::Shared,
            "private" => Space::Private,
            _ => return None,
        })
    }

    /// A scalar or vector type at the cursor (`.32b`, `.v4.32b`), if any.
    fn ty(&mut self) -> PResult<Option<Ty>> {
        let t = self.peek();
        if t.kind != Tok::Directive {
            return Ok(None);
        }
        let s = &self.text(t)[1..];
        if let Some(bits) = scalar_bits(s) {
            self.bump();
            return Ok(Some(Ty::scalar(bits)));
        }
        if let Some(n) = s.strip_prefix('v').and_then(|n| n.parse::<u32>().ok()) {
            self.bump();
            let e = self.peek();
            let bits = if e.kind == Tok::Directive {
                scalar_bits(&self.text(e)[1..])
            } else {
                None
            };
            let Some(bits) = bits else {
                return self.err("an element type such as `.32b` after the vector size");
            };
            self.bump();
            if !(2..=255).contains(&n) {
                self.rep.error(
                    t.span.to(e.span),
                    "vector-type",
                    format!("vector types have 2 to 64 elements, not {n}"),
                );
                return Ok(Some(Ty { bits, count: 2 }));
            }
            return Ok(Some(Ty {
                bits,
                count: n as u8,
            }));
        }
        Ok(None)
    }

    fn attr(&mut self) -> PResult<Attr> {
        let t = self.bump();
        let name = self.text(t)[1..].to_string();
        let mut args = Vec::new();
        let mut span = t.span;
        if self.eat(Tok::LParen).is_some() {
            loop {
                let a = self.peek();
                match a.kind {
                    Tok::Number => {
                        self.bump();
                        match parse_int(self.text(a)) {
                            Some(l) if !l.negative => args.push(AttrArg::Int(l.value, a.span)),
                            _ => {
                                self.rep.error(a.span, "syntax", "expected an integer");
                                return Err(Fail);
                            }
                        }
                    }
                    Tok::Ident => {
                        self.bump();
                        args.push(AttrArg::Ident(self.text(a).to_string(), a.span));
                    }
                    Tok::Str => {
                        self.bump();
                        let s = self.text(a);
                        args.push(AttrArg::Str(s[1..s.len() - 1].to_string(), a.span));
                    }
                    Tok::RParen => {}
                    _ => return self.err("an attribute value"),
                }
                if self.eat(Tok::Comma).is_none() {
                    break;
                }
            }
            span = span.to(self.expect(Tok::RParen, "`)`")?.span);
        } else if name == "align" && self.kind() == Tok::Number {
            let a = self.bump();
            match parse_int(self.text(a)) {
                Some(l) if !l.negative => args.push(AttrArg::Int(l.value, a.span)),
                _ => {
                    self.rep
                        .error(a.span, "syntax", "expected an alignment in bytes");
                    return Err(Fail);
                }
            }
            span = span.to(a.span);
        }
        Ok(Attr { name, args, span })
    }

    // ------------------------------------------------------------- variables

    fn var_decl(
        &mut self,
        start: Span,
        space: Space,
        space_span: Span,
        linkage: Linkage,
    ) -> PResult<VarDecl> {
        let mut align = None;
        let mut attrs = Vec::new();
        let mut elem_ty = None;
        let mut linkage = linkage;
        loop {
            let t = self.peek();
            if t.kind != Tok::Directive {
                break;
            }
            if let Some(l) = self.linkage_directive() {
                linkage = l;
                continue;
            }
            if let Some(ty) = self.ty()? {
                elem_ty = Some(ty);
                continue;
            }
            let a = self.attr()?;
            if a.name == "align" {
                match a.args.as_slice() {
                    [AttrArg::Int(n, _)] => align = Some((*n, a.span)),
                    _ => {
                        self.rep
                            .error(a.span, "syntax", "expected `.align N` with N in bytes");
                        return Err(Fail);
                    }
                }
            } else {
                attrs.push(a);
            }
        }
        let n = self.expect(Tok::Sym, "a variable name `@name`")?;
        let name = self.name(n);
        let mut size = None;
        if self.eat(Tok::LBracket).is_some() {
            let s = self.expect(Tok::Number, "a size in bytes")?;
            match parse_int(self.text(s)) {
                Some(l) if !l.negative => size = Some((l.value, s.span)),
                _ => {
                    self.rep.error(s.span, "syntax", "expected a size in bytes");
                    return Err(Fail);
                }
            }
            self.expect(Tok::RBracket, "`]`")?;
        }
        let mut init = None;
        let mut init_span = Span::default();
        if self.eat(Tok::Eq).is_some() {
            let open = self.expect(Tok::LBrace, "`{` starting an initializer")?;
            let elems = self.comma_list(Tok::RBrace, Self::init_elem)?;
            let close = self.expect(Tok::RBrace, "`,` or `}` in the initializer")?;
            init_span = open.span.to(close.span);
            init = Some(elems);
        }
        let end = self.expect(Tok::Semi, "`;`")?;
        Ok(VarDecl {
            space,
            space_span,
            linkage,
            align,
            attrs,
            elem_ty,
            name,
            name_span: n.span,
            size,
            init,
            init_span,
            span: start.to(end.span),
        })
    }

    fn init_elem(&mut self) -> PResult<InitElem> {
        let t = self.peek();
        if self.at_directive("zero") {
            self.bump();
            let n = self.expect(Tok::Number, "a byte count after `.zero`")?;
            return match parse_int(self.text(n)) {
                Some(l) if !l.negative => Ok(InitElem::Zero {
                    bytes: l.value,
                    span: t.span.to(n.span),
                }),
                _ => {
                    self.rep.error(n.span, "syntax", "expected a byte count");
                    Err(Fail)
                }
            };
        }
        let bits = match t.kind {
            Tok::Directive => scalar_bits(&self.text(t)[1..]),
            _ => None,
        };
        let Some(bits) = bits else {
            return self.err("an initializer element such as `.32b 0` or `.zero 4`");
        };
        self.bump();
        if let Some(s) = self.eat(Tok::Sym) {
            let name = self.name(s);
            let mut offset = 0i64;
            let mut span = t.span.to(s.span);
            if matches!(self.kind(), Tok::Plus | Tok::Minus) {
                let neg = self.bump().kind == Tok::Minus;
                let n = self.expect(Tok::Number, "an offset")?;
                match parse_int(self.text(n)) {
                    Some(l) if !l.negative && l.value <= i64::MAX as u64 => {
                        offset = if neg {
                            -(l.value as i64)
                        } else {
                            l.value as i64
                        }
                    }
                    _ => {
                        self.rep.error(n.span, "syntax", "expected a byte offset");
                        return Err(Fail);
                    }
                }
                span = span.to(n.span);
            }
            return Ok(InitElem::Symbol {
                bits,
                name,
                offset,
                span,
            });
        }
        let n = self.peek_at(usize::from(self.kind() == Tok::Minus));
        if n.kind == Tok::Number
            && parse_int(self.text(n)).is_none()
            && parse_float(self.text(n)).is_some()
        {
            self.eat(Tok::Minus);
            self.bump();
            self.rep.error(
                t.span.to(n.span),
                "initializer-element",
                "initializer values are integers: write a floating-point value as its hexadecimal bit pattern (e.g. `.32b 0x3F800000`)",
            );
            return Ok(InitElem::Zero {
                bytes: bits as u64 / 8,
                span: t.span.to(n.span),
            });
        }
        let (lit, span) = self.int_literal("an integer value")?;
        Ok(InitElem::Int {
            bits,
            lit,
            span: t.span.to(span),
        })
    }

    /// `[-]NUMBER` as an integer literal.
    fn int_literal(&mut self, what: &str) -> PResult<(IntLit, Span)> {
        let start = self.peek().span;
        let neg = self.eat(Tok::Minus).is_some();
        let n = self.expect(Tok::Number, what)?;
        let span = start.to(n.span);
        match parse_int(self.text(n)) {
            Some(l) => match negate(l, neg) {
                Some(l) => Ok((l, span)),
                None => {
                    self.rep.error(
                        span,
                        "immediate-range",
                        "integer literal does not fit in 64 bits",
                    );
                    Err(Fail)
                }
            },
            None if is_int_syntax(self.text(n)) => {
                let msg = format!(
                    "integer literal `{}` does not fit in 64 bits",
                    shorten(self.text(n), 40)
                );
                self.rep.error(span, "immediate-range", msg);
                Err(Fail)
            }
            None => {
                let msg = format!("`{}` is not an integer literal", shorten(self.text(n), 40));
                self.rep.error(n.span, "syntax", msg);
                Err(Fail)
            }
        }
    }

    // ------------------------------------------------------------- functions

    fn func(&mut self, start: Span, linkage: Linkage) -> PResult<FuncDecl> {
        let kw = self.bump();
        let kind = if &self.text(kw)[1..] == "kernel" {
            FuncKind::Kernel
        } else {
            FuncKind::Function
        };
        let mut attrs = Vec::new();
        let mut ret = None;
        let mut ret_span = kw.span;
        let mut linkage = linkage;
        loop {
            let t = self.peek();
            if t.kind == Tok::Ident && self.text(t) == "void" && kind == FuncKind::Function {
                self.bump();
                ret_span = t.span;
                continue;
            }
            if t.kind != Tok::Directive {
                break;
            }
            if let Some(l) = self.linkage_directive() {
                linkage = l;
                continue;
            }
            let d = &self.text(t)[1..];
            if kind == FuncKind::Function && d == "pred" {
                self.bump();
                self.rep
                    .error(t.span, "pred-return", "predicates cannot be return values");
                continue;
            }
            if kind == FuncKind::Function {
                if let Some(ty) = self.ty()? {
                    ret = Some(ty);
                    ret_span = t.span.to(self.prev);
                    continue;
                }
            }
            attrs.push(self.attr()?);
        }
        let n = self.expect(Tok::Sym, "a function name `@name`")?;
        let name = self.name(n);
        self.expect(Tok::LParen, "`(`")?;
        let params = self.comma_list(Tok::RParen, Self::param)?;
        let close = self.expect(Tok::RParen, "`,` or `)` after parameters")?;
        let body = if self.eat(Tok::Semi).is_some() {
            None
        } else if self.kind() == Tok::LBrace {
            Some(self.block()?)
        } else {
            return self.err("`{` or `;`");
        };
        let end = body.as_ref().map_or(close.span, |b| b.close);
        Ok(FuncDecl {
            kind,
            linkage,
            attrs,
            ret,
            ret_span,
            name,
            name_span: n.span,
            params,
            body,
            span: start.to(end),
        })
    }

    fn param(&mut self) -> PResult<Param> {
        let start = self.peek();
        let kind = if self.at_directive("reg") {
            self.bump();
            match self.ty()? {
                Some(ty) => ParamKind::Reg(ty),
                None => return self.err("a register type such as `.32b`"),
            }
        } else if self.at_directive("pred") {
            self.bump();
            ParamKind::Pred
        } else if self.at_directive("param") {
            self.bump();
            self.expect(Tok::LBracket, "`[` and the parameter size in bytes")?;
            let s = self.expect(Tok::Number, "the parameter size in bytes")?;
            let size = match parse_int(self.text(s)) {
                Some(l) if !l.negative => l.value,
                _ => {
                    self.rep.error(s.span, "syntax", "expected a size in bytes");
                    return Err(Fail);
                }
            };
            self.expect(Tok::RBracket, "`]`")?;
            ParamKind::Param(size)
        } else {
            return self.err("a parameter (`.reg TYPE %name` or `.param[N] %name`)");
        };
        let mut attrs = Vec::new();
        while self.kind() == Tok::Directive {
            attrs.push(self.attr()?);
        }
        let mut span = start.span.to(self.prev);
        let name = match self.eat(Tok::Reg) {
            Some(t) => {
                span = span.to(t.span);
                self.check_reg_name(t);
                Some((self.name(t), t.span))
            }
            None => None,
        };
        Ok(Param {
            kind,
            attrs,
            name,
            span,
        })
    }

    fn block(&mut self) -> PResult<Block> {
        let open = self.expect(Tok::LBrace, "`{`")?;
        if self.depth >= MAX_BLOCK_DEPTH {
            self.rep.error(
                open.span,
                "syntax",
                format!("blocks nest more than {MAX_BLOCK_DEPTH} levels deep here"),
            );
            self.skip_block();
            return Err(Fail);
        }
        self.depth += 1;
        let block = self.block_body(open);
        self.depth -= 1;
        block
    }

    /// Skips to the `}` that closes a `{` just consumed (or the end).
    fn skip_block(&mut self) {
        let mut open = 1usize;
        loop {
            match self.kind() {
                Tok::Eof => return,
                Tok::LBrace => open += 1,
                Tok::RBrace => {
                    open -= 1;
                    if open == 0 {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn block_body(&mut self, open: Token) -> PResult<Block> {
        let mut stmts = Vec::new();
        loop {
            match self.kind() {
                Tok::RBrace => {
                    let close = self.bump();
                    return Ok(Block {
                        stmts,
                        open: open.span,
                        close: close.span,
                    });
                }
                Tok::Eof => {
                    self.rep
                        .error(open.span, "syntax", "this `{` is never closed");
                    return Err(Fail);
                }
                _ => match self.stmt() {
                    Ok(s) => stmts.push(s),
                    Err(Fail) => self.recover(),
                },
            }
        }
    }

    // ------------------------------------------------------------ statements

    fn stmt(&mut self) -> PResult<Stmt> {
        let t = self.peek();
        match t.kind {
            Tok::LBrace => self.block().map(|b| Stmt::Block(Box::new(b))),
            // LLVM block labels: `.LBB0_1:`
            Tok::Directive | Tok::Ident if self.peek_at(1).kind == Tok::Colon => {
                self.bump();
                let colon = self.bump();
                let name = self.intern(self.text(t));
                // "Labels must appear alone on a line" (spec 05 §1.2); a
                // closing `}` after one is tolerated
                let next = self.peek();
                let gap = &self.src[colon.span.end as usize..next.span.start as usize];
                if !matches!(next.kind, Tok::Eof | Tok::RBrace) && !gap.contains(['\n', '\r']) {
                    self.rep.error(
                        next.span,
                        "syntax",
                        "a label must be alone on its line (spec 05 §1.2): start a new line after `:`",
                    );
                }
                Ok(Stmt::Label(name, t.span))
            }
            Tok::Directive => {
                let d = &self.text(t)[1..];
                if d == "reg" || d == "pred" {
                    self.reg_decl()
                } else if let Some(space) = self.space_of(t) {
                    self.bump();
                    self.var_decl(t.span, space, t.span, Linkage::Internal)
                        .map(|v| Stmt::Var(Box::new(v)))
                } else if d == "export" || d == "import" {
                    self.err("a statement (linkage is only allowed at module scope)")
                } else {
                    self.err("a statement")
                }
            }
            Tok::Ident => self.instr().map(Stmt::Instr),
            _ => self.err("a statement"),
        }
    }

    fn reg_decl(&mut self) -> PResult<Stmt> {
        let kw = self.bump();
        let ty = if &self.text(kw)[1..] == "reg" {
            match self.ty()? {
                Some(ty) => Some(ty),
                None => return self.err("a register type such as `.32b` or `.v4.32b`"),
            }
        } else {
            None
        };
        let mut names = Vec::new();
        loop {
            let n = self.expect(Tok::Reg, "a register name `%name`")?;
            self.check_reg_name(n);
            if self.eat(Tok::Lt).is_some() {
                let (a, _) = self.int_literal("the range start")?;
                self.expect(Tok::Tilde, "`~`")?;
                let (b, _) = self.int_literal("the range end")?;
                let gt = self.expect(Tok::Gt, "`>`")?;
                let span = n.span.to(gt.span);
                let base = self.text(n)[1..].to_string();
                if a.negative || b.negative || a.value >= b.value {
                    self.rep.error(
                        span,
                        "register-range",
                        format!(
                            "empty register range `<{}~{}>`: the start must be below the end",
                            a.math(),
                            b.math()
                        ),
                    );
                } else if b.value - a.value > MAX_RANGE {
                    self.rep.error(
                        span,
                        "register-range",
                        format!("register range declares more than {MAX_RANGE} registers"),
                    );
                } else {
                    for i in a.value..b.value {
                        let name = self.interner.intern(&format!("{base}{i}"));
                        names.push((name, span));
                    }
                }
            } else {
                names.push((self.name(n), n.span));
            }
            if self.eat(Tok::Comma).is_none() {
                break;
            }
        }
        let end = self.expect(Tok::Semi, "`,` or `;`")?;
        Ok(Stmt::Reg {
            ty,
            names,
            span: kw.span.to(end.span),
        })
    }

    fn instr(&mut self) -> PResult<Instr> {
        let m = self.bump();
        let operands = self.operand_list(Tok::Semi)?;
        let end = self.expect(Tok::Semi, "`,` or `;` after an operand")?;
        Ok(Instr {
            mnemonic: m.span,
            operands: operands.into_boxed_slice(),
            end: end.span.end,
            form: FormRef::UNRESOLVED,
        })
    }

    /// A declared register's name must match `[a-zA-Z$._][a-zA-Z$._0-9]*`
    /// (spec 05 §1.3): `%9x` is not one. (Uses need no check: an undeclared
    /// name is reported where it is used.)
    fn check_reg_name(&mut self, t: Token) {
        let first = self.src.as_bytes().get(t.span.start as usize + 1).copied();
        if first.is_some_and(|c| c.is_ascii_digit()) {
            self.rep.error(
                t.span,
                "syntax",
                "a register name must start with a letter, `$`, `.` or `_` (spec 05 §1.3)",
            );
        }
    }

    fn reg_ref(&mut self, t: Token) -> RegRef {
        let text = &self.src[t.span.start as usize + 1..t.span.end as usize];
        if let Some((base, sw)) = text.rsplit_once('.') {
            if let Some(swizzle) = Swizzle::parse(sw) {
                let name = self.intern(base);
                return RegRef {
                    name,
                    swizzle: Some(swizzle),
                    span: t.span,
                };
            }
        }
        RegRef {
            name: self.intern(text),
            swizzle: None,
            span: t.span,
        }
    }

    fn operand(&mut self) -> PResult<Operand> {
        let t = self.peek();
        let op = match t.kind {
            Tok::Reg => {
                self.bump();
                Operand::Reg(self.reg_ref(t))
            }
            Tok::Bang => {
                self.bump();
                let r = self.expect(Tok::Reg, "a predicate register after `!`")?;
                let mut rr = self.reg_ref(r);
                rr.span = t.span.to(r.span);
                Operand::NotPred(rr)
            }
            Tok::Sym => {
                self.bump();
                Operand::Symbol(self.name(t), t.span)
            }
            Tok::Ident if self.text(t) == "void" => {
                self.bump();
                Operand::Void(t.span)
            }
            Tok::Ident | Tok::Directive => {
                self.bump();
                let name = self.intern(self.text(t));
                Operand::Label(name, t.span)
            }
            Tok::Number | Tok::Minus => self.number_operand()?,
            Tok::LBracket => self.address()?,
            _ => return self.err("an operand"),
        };
        if self.kind() == Tok::LParen {
            // call target(args)
            self.bump();
            let args = self.operand_list(Tok::RParen)?;
            let close = self.expect(Tok::RParen, "`,` or `)` after call arguments")?;
            let span = op.span().to(close.span);
            return Ok(Operand::Call(Box::new(CallOperand {
                target: op,
                args,
                span,
            })));
        }
        Ok(op)
    }

    fn number_operand(&mut self) -> PResult<Operand> {
        let start = self.peek().span;
        let neg = self.eat(Tok::Minus).is_some();
        let t = self.peek();
        if matches!(t.kind, Tok::Ident | Tok::Directive) {
            if let Some((msg, note)) = float_word_message(self.text(t)) {
                self.bump();
                self.rep
                    .error_with_note(start.to(t.span), "syntax", msg, note);
                return Err(Fail);
            }
        }
        let n = self.expect(Tok::Number, "a number")?;
        let span = start.to(n.span);
        let text = self.text(n);
        if is_int_syntax(text) && parse_int(text).is_none() {
            let msg = format!(
                "integer literal `{}{}` does not fit in 64 bits",
                if neg { "-" } else { "" },
                shorten(text, 40)
            );
            self.rep.error(span, "immediate-range", msg);
            return Err(Fail);
        }
        if let Some(l) = parse_int(text) {
            return match negate(l, neg) {
                Some(l) => Ok(Operand::Int(l, span)),
                None => {
                    self.rep.error(
                        span,
                        "immediate-range",
                        "integer literal does not fit in 64 bits",
                    );
                    Err(Fail)
                }
            };
        }
        match parse_float(text) {
            Some(f) => Ok(Operand::Float(if neg { -f } else { f }, span)),
            None => {
                let msg = format!("`{}` is not a number", shorten(text, 40));
                self.rep.error(n.span, "syntax", msg);
                Err(Fail)
            }
        }
    }

    fn address(&mut self) -> PResult<Operand> {
        let open = self.bump();
        let t = self.peek();
        let base = match t.kind {
            Tok::Reg => {
                self.bump();
                AddrBase::Reg(self.reg_ref(t))
            }
            Tok::Sym => {
                self.bump();
                AddrBase::Var(self.name(t), t.span)
            }
            Tok::Number => {
                let (l, s) = self.int_literal("an address")?;
                AddrBase::Imm(l, s)
            }
            _ => return self.err("a register, variable or immediate address"),
        };
        let mut offset = None;
        if matches!(self.kind(), Tok::Plus | Tok::Minus) {
            let sign = self.bump();
            let neg = sign.kind == Tok::Minus;
            let t = self.peek();
            offset = Some(match t.kind {
                Tok::Reg if !neg => {
                    self.bump();
                    AddrOffset::Reg(self.reg_ref(t))
                }
                Tok::Number | Tok::Minus => {
                    let (l, s) = self.int_literal("an offset")?;
                    let l = if neg {
                        match negate(l, true) {
                            Some(l) => l,
                            None => {
                                self.rep.error(s, "immediate-range", "offset out of range");
                                return Err(Fail);
                            }
                        }
                    } else {
                        l
                    };
                    let m = l.math();
                    if m < i64::MIN as i128 || m > u64::MAX as i128 {
                        self.rep.error(s, "immediate-range", "offset out of range");
                        return Err(Fail);
                    }
                    AddrOffset::Imm(l.value as i64, sign.span.to(s))
                }
                _ => return self.err("a register or immediate offset"),
            });
        }
        let close = self.expect(Tok::RBracket, "`+`, `-` or `]`")?;
        Ok(Operand::Addr(Box::new(AddrOperand {
            base,
            offset,
            span: open.span.to(close.span),
        })))
    }
}

/// `.8b` → 8 etc. Only the plain bitwidth types make register/variable types.
pub fn scalar_bits(s: &str) -> Option<u16> {
    Some(match s {
        "8b" => 8,
        "16b" => 16,
        "32b" => 32,
        "64b" => 64,
        "128b" => 128,
        _ => return None,
    })
}

/// Parses a decimal or `0x` hexadecimal integer (no sign).
pub fn parse_int(s: &str) -> Option<IntLit> {
    let b = s.as_bytes();
    if b.len() > 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' {
        let digits = &s[2..];
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let trimmed = digits.trim_start_matches('0');
        if trimmed.len() > 16 {
            return None;
        }
        let value = if trimmed.is_empty() {
            0
        } else {
            u64::from_str_radix(trimmed, 16).ok()?
        };
        return Some(IntLit {
            value,
            hex: true,
            digits: digits.len().min(255) as u8,
            negative: false,
        });
    }
    if !b.iter().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let value: u64 = s.parse().ok()?;
    Some(IntLit {
        value,
        hex: false,
        digits: 0,
        negative: false,
    })
}

/// Written as an integer: decimal digits, or `0x` and hexadecimal digits.
fn is_int_syntax(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() > 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' {
        return b[2..].iter().all(u8::is_ascii_hexdigit);
    }
    !b.is_empty() && b.iter().all(u8::is_ascii_digit)
}

/// For a word where a number was meant (`.5`, `nan`, `inf`, `infinity`):
/// what it is, and a note on how PISA writes numbers (spec 07 §3.2).
pub fn float_word_message(word: &str) -> Option<(String, String)> {
    let lower = word.to_ascii_lowercase();
    let what = match lower.as_str() {
        "nan" | "qnan" | "snan" => "PISA has no NaN literal",
        "inf" | "infinity" => "PISA has no infinity literal",
        _ if lower.starts_with('.') && lower.as_bytes().get(1).is_some_and(u8::is_ascii_digit) => {
            "a decimal literal starts with a digit (`0.5`, not `.5`)"
        }
        _ => return None,
    };
    Some((
        format!("`{}` is not a number: {what}", shorten(word, 40)),
        "a floating-point immediate is a decimal literal (`0.5`, `1e-3`, `-2.0`) or an IEEE hexadecimal literal of the operand's size (spec 07 §3.2): as 32 bits, `0x3F000000` is 0.5, `0x7F800000` +infinity and `0x7FC00000` a NaN".to_string(),
    ))
}

/// An invalid character as a message names it: invisible and look-alike
/// characters by their code point and name.
pub fn describe_char(c: char) -> String {
    let name = match c {
        '\u{FEFF}' => "byte-order mark, allowed only at the start of the file",
        '\u{200B}' => "zero-width space",
        '\u{200C}' => "zero-width non-joiner",
        '\u{200D}' => "zero-width joiner",
        '\u{2060}' => "word joiner",
        '\u{00A0}' => "no-break space",
        '\u{202F}' => "narrow no-break space",
        '\u{3000}' => "ideographic space",
        '\u{2000}'..='\u{200A}' => "a Unicode space",
        '\u{00AD}' => "soft hyphen",
        '\u{2028}' => "line separator",
        '\u{2029}' => "paragraph separator",
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' => {
            "bidirectional text control"
        }
        '\u{FFFD}' => "replacement character: the file is not valid UTF-8 here",
        '\u{2018}' | '\u{2019}' | '\u{201C}' | '\u{201D}' => "typographic quote",
        c if c.is_control() => "control character",
        c => return format!("invalid character `{c}` (U+{:04X})", c as u32),
    };
    format!("invalid character U+{:04X} ({name})", c as u32)
}

/// Applies a leading minus sign; `None` if the result does not fit in 64 bits.
fn negate(l: IntLit, neg: bool) -> Option<IntLit> {
    if !neg {
        return Some(l);
    }
    if l.value > 1u64 << 63 {
        return None;
    }
    Some(IntLit {
        value: (l.value as i64).wrapping_neg() as u64,
        negative: l.value != 0,
        ..l
    })
}

/// Decimal floats (`4.2`, `1e-3`) and C99 hexadecimal floats (`0x1.8p3`).
pub fn parse_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    if b.len() > 2 && b[0] == b'0' && (b[1] | 0x20) == b'x' {
        return parse_hex_float(&s[2..]);
    }
    if !b[0].is_ascii_digit()
        || s.contains(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
    {
        return None;
    }
    s.parse::<f64>().ok()
}

fn parse_hex_float(s: &str) -> Option<f64> {
    let (mant, exp) = s.split_once(['p', 'P'])?;
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    Some(v * 2f64.powi(exp.clamp(-2000, 2000)))
}

/// The name a quoted symbol `@"..."` stands for (docs/llvm-printer.md, C1):
/// `\XX` is the byte with hex value XX (as the character of that code point),
/// `\"` a quote, `\n` a newline, `\\` a backslash. `@"abc"` and `@abc` are one
/// symbol.
pub fn decode_quoted_name(q: &str) -> String {
    let mut out = String::with_capacity(q.len());
    let mut chars = q.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('"') => {
                chars.next();
                out.push('"');
            }
            Some('n') => {
                chars.next();
                out.push('\n');
            }
            Some('\\') => {
                chars.next();
                out.push('\\');
            }
            _ => {
                let hex: String = chars.clone().take(2).collect();
                match (hex.len(), u8::from_str_radix(&hex, 16)) {
                    (2, Ok(b)) => {
                        chars.next();
                        chars.next();
                        out.push(char::from(b));
                    }
                    // not an escape: kept as written
                    _ => out.push('\\'),
                }
            }
        }
    }
    out
}
