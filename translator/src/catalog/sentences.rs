//! Meaning of the spec's operand sentences ("src0, src1 can be 32-bit registers
//! or immediates") and restriction sentences ("qualifier `.cc` must not be
//! specified when qualifier `.addrspace` is `.shared`"). Each sentence pattern
//! the spec uses is recognized here once; an unknown sentence is a load error.

/// Operand kinds a form accepts at one position (a bit set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Kinds(pub u16);

impl Kinds {
    pub const REG: Kinds = Kinds(1);
    pub const IMM: Kinds = Kinds(2);
    pub const PRED: Kinds = Kinds(4);
    /// A whole vector register (no swizzle).
    pub const VECTOR: Kinds = Kinds(8);
    /// A whole vector register holding a packed value.
    pub const PACKED: Kinds = Kinds(16);
    pub const ADDR: Kinds = Kinds(32);
    pub const MEMVAR: Kinds = Kinds(64);
    pub const FUNC: Kinds = Kinds(128);
    pub const LABEL: Kinds = Kinds(256);
    pub const VOID: Kinds = Kinds(512);

    pub fn has(self, k: Kinds) -> bool {
        self.0 & k.0 != 0
    }
    pub fn describe(self) -> String {
        let names = [
            (Kinds::REG, "a register"),
            (Kinds::IMM, "an immediate"),
            (Kinds::PRED, "a predicate register"),
            (Kinds::VECTOR, "a vector register"),
            (Kinds::PACKED, "a packed (vector) register"),
            (Kinds::ADDR, "an address `[...]`"),
            (Kinds::MEMVAR, "a memory variable"),
            (Kinds::FUNC, "a function name"),
            (Kinds::LABEL, "a label"),
            (Kinds::VOID, "`void`"),
        ];
        let v: Vec<&str> = names
            .iter()
            .filter(|(k, _)| self.has(*k))
            .map(|(_, n)| *n)
            .collect();
        v.join(" or ")
    }
}

impl std::ops::BitOr for Kinds {
    type Output = Kinds;
    fn bitor(self, o: Kinds) -> Kinds {
        Kinds(self.0 | o.0)
    }
}

/// Address operand forms (spec 07 §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AddrForms {
    pub rr: bool,
    pub ri: bool,
    pub r: bool,
    pub i: bool,
}

#[derive(Debug, Clone)]
pub struct OperandSpec {
    pub name: String,
    pub optional: bool,
    /// `<!>pred`: may be written negated.
    pub negatable: bool,
    /// `dst.swizzle` in the syntax line: must carry a multi-element swizzle.
    pub swizzled: bool,
    /// `target (<arg1> ...)`: the call target with its argument list.
    pub call: bool,
    pub kinds: Kinds,
    /// Width in bits fixed by the operand sentence ("is a 32-bit register").
    pub bits: Option<u16>,
    /// Vector shape fixed by the sentence ("2x16-bit vector registers",
    /// "32-bit element vector register"): (count, element bits).
    pub vec_count: Option<u8>,
    pub elem_bits: Option<u16>,
    pub addr: AddrForms,
    /// From an "interpreted as ..." sentence: `signed`, `unsigned`, ...
    pub interp: Option<String>,
}

impl OperandSpec {
    pub fn new(name: &str) -> OperandSpec {
        let kinds = default_kinds(name);
        OperandSpec {
            name: name.to_string(),
            optional: false,
            negatable: false,
            swizzled: false,
            call: false,
            kinds,
            bits: None,
            vec_count: None,
            elem_bits: None,
            addr: AddrForms {
                rr: true,
                ri: true,
                r: true,
                i: false,
            },
            interp: None,
        }
    }
}

/// What an operand accepts when no sentence describes it, by its name in the
/// syntax line (the spec leaves e.g. `fcmp`'s `pred` and `sel`'s `src2` implicit).
fn default_kinds(name: &str) -> Kinds {
    match name {
        "dst" => Kinds::REG,
        "pred" | "carry-in" | "carry-out" => Kinds::PRED,
        "label" => Kinds::LABEL,
        "addr" | "vaddr" => Kinds::ADDR,
        "target" => Kinds::REG | Kinds::FUNC,
        "retval" => Kinds::REG | Kinds::IMM,
        _ => Kinds::REG | Kinds::IMM,
    }
}

/// Applies one operand sentence to the named operands.
pub fn apply_operand_sentence(s: &str, ops: &mut [OperandSpec]) -> Result<(), String> {
    let (names, desc) = if let Some((n, d)) = s.split_once(" can be ") {
        (n, d)
    } else if let Some((n, d)) = s.split_once(" are ") {
        (n, d)
    } else if let Some((n, d)) = s.split_once(" is ") {
        (n, d)
    } else {
        return Err(format!("unrecognized operand sentence: {s}"));
    };
    let mut spec = OperandSpec::new("_");
    spec.kinds = Kinds(0);
    // "an address operand, in the form MemRR or MemRI" is one alternative
    let alts: Vec<&str> = if desc.starts_with("an address operand") {
        vec![desc]
    } else {
        desc.split(" or ").collect()
    };
    for alt in alts {
        let alt = alt
            .trim()
            .trim_start_matches("an ")
            .trim_start_matches("a ");
        let mut words: Vec<&str> = alt.split(' ').collect();
        // width prefixes: "32-bit", "2x16-bit", "32-bit element"
        if let Some(w) = words.first().and_then(|w| w.strip_suffix("-bit")) {
            if let Some((n, b)) = w.split_once('x') {
                spec.vec_count = Some(n.parse().map_err(|_| format!("bad shape in: {s}"))?);
                spec.elem_bits = Some(b.parse().map_err(|_| format!("bad shape in: {s}"))?);
            } else {
                let bits: u16 = w.parse().map_err(|_| format!("bad width in: {s}"))?;
                if words.get(1) == Some(&"element") {
                    spec.elem_bits = Some(bits);
                    words.remove(1);
                } else {
                    spec.bits = Some(bits);
                }
            }
            words.remove(0);
        }
        let noun = words.join(" ");
        let kind = match noun.trim_end_matches('s') {
            "register" => Kinds::REG,
            "immediate" => Kinds::IMM,
            "predicate register" => Kinds::PRED,
            "vector register" => {
                if spec.vec_count.is_some() {
                    Kinds::PACKED
                } else {
                    Kinds::VECTOR
                }
            }
            "packed register" => Kinds::PACKED,
            "memory variable" => Kinds::MEMVAR,
            "function name" => Kinds::FUNC,
            "void" => Kinds::VOID,
            "named location within current function" => Kinds::LABEL,
            n if n.starts_with("address operand, in the form ") => {
                let mut f = AddrForms::default();
                for form in n["address operand, in the form ".len()..].split(&[' ', ','][..]) {
                    match form.trim_end_matches('s') {
                        "MemRR" => f.rr = true,
                        "MemRI" => f.ri = true,
                        "MemR" => f.r = true,
                        "MemI" => f.i = true,
                        _ => {}
                    }
                }
                // `[r]` is `[r + 0]`: MemRI covers it (spec 07 §3.3 examples).
                f.r |= f.ri;
                spec.addr = f;
                Kinds::ADDR
            }
            _ => return Err(format!("unrecognized operand description `{alt}` in: {s}")),
        };
        spec.kinds = spec.kinds | kind;
    }
    for name in names.split(", ") {
        let name = name.trim();
        let op = ops
            .iter_mut()
            .find(|o| o.name == name)
            .ok_or_else(|| format!("sentence names unknown operand `{name}`: {s}"))?;
        op.kinds = spec.kinds;
        op.bits = spec.bits;
        op.vec_count = spec.vec_count;
        op.elem_bits = spec.elem_bits;
        op.addr = spec.addr;
    }
    Ok(())
}

/// "src0, src1 are interpreted as signed integers."
pub fn apply_interp_sentence(s: &str, ops: &mut [OperandSpec]) -> Result<(), String> {
    let (names, what) = s
        .split_once(" interpreted as ")
        .ok_or_else(|| format!("unrecognized interpretation sentence: {s}"))?;
    let names = names.trim_end_matches(" are").trim_end_matches(" is");
    let what = what.trim_end_matches('.').split(' ').next().unwrap_or("");
    for name in names.split(", ") {
        if let Some(op) = ops.iter_mut().find(|o| o.name == name.trim()) {
            op.interp = Some(what.to_string());
        } else {
            return Err(format!("sentence names unknown operand `{name}`: {s}"));
        }
    }
    Ok(())
}

/// A width term: an operand (`dst`) or a qualifier (`.to`).
#[derive(Debug, Clone, PartialEq)]
pub enum Term {
    Operand(String),
    Qual(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    Specified(String),
    Is(String, Vec<String>),
    IsNot(String, String),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// bitwidth of each operand == (factor ×) bitwidth of the qualifier
    Width {
        ops: Vec<String>,
        qual: String,
        factor: u16,
    },
    /// bitwidth of the operand == address size of the qualifier's space
    AddrSize {
        op: String,
        qual: String,
    },
    /// element count × element bits of the operand == bitwidth of the qualifier
    TotalWidth {
        op: String,
        qual: String,
    },
    /// element count of the operand == value of `.vec`
    Elements {
        op: String,
        qual: String,
    },
    /// operands are vector registers shaped like the packed type
    Packed {
        ops: Vec<String>,
        qual: String,
    },
    /// bitwidth(a) > bitwidth(b) (or < when `greater` is false)
    Compare {
        a: Term,
        b: Term,
        greater: bool,
    },
    /// value of `.index` < element count of op
    IndexBelow {
        qual: String,
        op: String,
    },
    /// value of `.index` + element count of `add` <= element count of `bound`
    IndexSum {
        qual: String,
        add: String,
        bound: String,
    },
    /// value of `.index` is a multiple of the element count of op
    IndexAligned {
        qual: String,
        op: String,
    },
    /// address space of the memory variable == value of the qualifier
    SpaceOf {
        op: String,
        qual: String,
    },
    /// address size of the variable's space == bitwidth of the qualifier
    StorageSize {
        op: String,
        qual: String,
    },
    ReturnType,
    CallReturnType,
    /// The operand may appear only when the condition holds.
    OperandOnlyWhen {
        op: String,
        cond: Cond,
    },
    /// The condition over qualifiers must hold.
    Holds(Cond),
}

fn ticked(s: &str) -> Vec<String> {
    s.split('`')
        .skip(1)
        .step_by(2)
        .map(|t| t.to_string())
        .collect()
}

fn qual(t: &str) -> Result<String, String> {
    t.strip_prefix('.')
        .map(str::to_string)
        .ok_or_else(|| format!("expected a qualifier, found `{t}`"))
}

/// "qualifier `.a` is `.b`", "... is one of [`.x`, `.y`]", "... != `.z`",
/// joined by " and " / " or ".
fn cond(s: &str) -> Result<Cond, String> {
    if let Some((a, b)) = s.split_once(" or qualifier ") {
        return Ok(Cond::Or(
            Box::new(cond(a)?),
            Box::new(cond(&format!("qualifier {b}"))?),
        ));
    }
    if let Some((a, b)) = s.split_once(" and qualifier ") {
        return Ok(Cond::And(
            Box::new(cond(a)?),
            Box::new(cond(&format!("qualifier {b}"))?),
        ));
    }
    let t = ticked(s);
    let q = qual(t.first().ok_or_else(|| format!("bad condition: {s}"))?)?;
    let vals: Result<Vec<String>, String> = t[1..].iter().map(|v| qual(v)).collect();
    let vals = vals?;
    if s.contains(" != ") {
        Ok(Cond::IsNot(q, vals.into_iter().next().unwrap_or_default()))
    } else if s.contains(" is ") && !vals.is_empty() {
        Ok(Cond::Is(q, vals))
    } else {
        Err(format!("bad condition: {s}"))
    }
}

pub fn parse_rule(s: &str) -> Result<Rule, String> {
    let t = ticked(s);
    let op = |i: usize| -> Result<String, String> {
        t.get(i)
            .cloned()
            .ok_or_else(|| format!("unrecognized restriction: {s}"))
    };
    let last = || t.last().cloned().unwrap_or_default();
    let ops_before_last = || t[..t.len().saturating_sub(1)].to_vec();
    let term = |x: &str| {
        if let Some(q) = x.strip_prefix('.') {
            Term::Qual(q.to_string())
        } else {
            Term::Operand(x.to_string())
        }
    };
    let r = if s.starts_with("bitwidth of ") && s.contains(" must match the address size of ") {
        Rule::AddrSize {
            op: op(0)?,
            qual: qual(&last())?,
        }
    } else if s.starts_with("bitwidth of ") && s.contains(" must match the bitwidth of ") {
        Rule::Width {
            ops: ops_before_last(),
            qual: qual(&last())?,
            factor: 1,
        }
    } else if s.starts_with("bitwidth of ") && s.contains(" must be twice the bitwidth of ") {
        Rule::Width {
            ops: ops_before_last(),
            qual: qual(&last())?,
            factor: 2,
        }
    } else if s.starts_with("bitwidth of ") && s.contains(" must be greater than the bitwidth of ")
    {
        Rule::Compare {
            a: term(&op(0)?),
            b: term(&op(1)?),
            greater: true,
        }
    } else if s.starts_with("bitwidth of ") && s.contains(" must be less than the bitwidth of ") {
        Rule::Compare {
            a: term(&op(0)?),
            b: term(&op(1)?),
            greater: false,
        }
    } else if s.starts_with("total width of ") {
        Rule::TotalWidth {
            op: op(0)?,
            qual: qual(&op(1)?)?,
        }
    } else if s.starts_with("number of elements of ") {
        Rule::Elements {
            op: op(0)?,
            qual: qual(&op(1)?)?,
        }
    } else if s.starts_with("element count and bitwidth of ") {
        Rule::Packed {
            ops: ops_before_last(),
            qual: qual(&last())?,
        }
    } else if s.starts_with("value of ")
        && s.contains(" must be less than the number of elements in ")
    {
        Rule::IndexBelow {
            qual: qual(&op(0)?)?,
            op: op(1)?,
        }
    } else if s.starts_with("sum of value of ") {
        Rule::IndexSum {
            qual: qual(&op(0)?)?,
            add: op(1)?,
            bound: op(2)?,
        }
    } else if s.contains(" must be aligned to the number of elements in ") {
        Rule::IndexAligned {
            qual: qual(&op(0)?)?,
            op: op(1)?,
        }
    } else if s.starts_with("address space of ") {
        Rule::SpaceOf {
            op: op(0)?,
            qual: qual(&op(1)?)?,
        }
    } else if s.starts_with("address size of storage space of ") {
        Rule::StorageSize {
            op: op(0)?,
            qual: qual(&op(1)?)?,
        }
    } else if s.starts_with("type of `retval` must match current function return type") {
        Rule::ReturnType
    } else if s.starts_with("type of `retval` must match `target` function return type") {
        Rule::CallReturnType
    } else if let Some(rest) = s.strip_prefix("operand ") {
        let o = op(0)?;
        if let Some((_, c)) = rest.split_once(" is defined only when ") {
            Rule::OperandOnlyWhen {
                op: o,
                cond: cond(c)?,
            }
        } else if let Some((_, c)) = rest.split_once(" is not defined when ") {
            Rule::OperandOnlyWhen {
                op: o,
                cond: Cond::Not(Box::new(cond(c)?)),
            }
        } else {
            return Err(format!("unrecognized restriction: {s}"));
        }
    } else if let Some(rest) = s.strip_prefix("qualifier ") {
        let q = qual(&op(0)?)?;
        if let Some((_, c)) = rest.split_once(" must not be specified when ") {
            Rule::Holds(Cond::Not(Box::new(Cond::And(
                Box::new(Cond::Specified(q)),
                Box::new(cond(c)?),
            ))))
        } else if let Some((_, c)) = rest.split_once(" can be specified only when ") {
            Rule::Holds(Cond::Or(
                Box::new(Cond::Not(Box::new(Cond::Specified(q)))),
                Box::new(cond(c)?),
            ))
        } else if let Some((head, c)) = rest.split_once(" unless ") {
            let v = qual(&ticked(head)[1])?;
            Rule::Holds(Cond::Or(
                Box::new(Cond::Not(Box::new(Cond::Is(q, vec![v])))),
                Box::new(cond(c)?),
            ))
        } else if let Some((head, c)) = rest.split_once(" when ") {
            let v = qual(&ticked(head)[1])?;
            Rule::Holds(Cond::Not(Box::new(Cond::And(
                Box::new(Cond::Is(q, vec![v])),
                Box::new(cond(c)?),
            ))))
        } else {
            return Err(format!("unrecognized restriction: {s}"));
        }
    } else {
        return Err(format!("unrecognized restriction: {s}"));
    };
    Ok(r)
}
