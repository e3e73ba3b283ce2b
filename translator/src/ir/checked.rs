//! `ir::checked`: the `checked` pass of checked mode (`pisa run --check`,
//! `Options::checked_memory`). Before every `ld`, `st` and atomic (not
//! `ld.param`: kernel parameters lie in the argument block the runtime
//! wrote), it inserts an [`Inst::CheckAccess`] that says what the access
//! reads or writes: its site (an index into [`Program::check_sites`], the
//! instruction the check block reports), its size in bytes and the
//! alignment spec 09 §5.1 asks of it.
//!
//! What a check does is the ABI's (docs/abi.md, "Checked mode"): the
//! address must lie inside a live allocation (device addresses) or its
//! arena (`.shared`, `.private`), aligned; a bad access goes to a sink and
//! is kept as the work-item's first bad one, which the runtime reports.
//! The back end lowers each check at the access that follows it
//! (`spirv::checked`), where the access's address and space are computed;
//! the cpu device checks every access on its own and never runs this pass.
//!
//! It runs last, after every pass that links library code (whose accesses
//! are checked too) and after `structurize` and `unroll`: it numbers the
//! sites in the order of each function's structured tree, the order the
//! back end emits the blocks in, and a block the tree names more than once
//! (the copies of an unrolled loop body) has one check per access, so its
//! copies report the same site. It adds no blocks, so the trees stay
//! valid.

use super::qualifier::Memorder;
use super::*;

/// The bytes and alignment checked mode checks of access `i`, or `None`
/// when `i` is no checked access.
pub fn access_size(i: &PisaInst) -> Option<(u32, u32)> {
    let bits = i.quals.ty.map_or(32, Type::bits) as u32;
    let atomic = match i.opcode {
        Opcode::Iatom | Opcode::Fatom => true,
        // `ld.param` reads the argument block
        Opcode::Ld | Opcode::St if !i.quals.param => {
            i.quals.memorder.is_some_and(|m| m != Memorder::Weak)
        }
        _ => return None,
    };
    if atomic {
        // an atomic (or an ordered `ld`/`st`) is one element, aligned to it
        return Some((bits / 8, bits / 8));
    }
    // spec 09 §5.1: aligned to the type's size; below 32 bits, to the
    // whole access's
    let step = bits / 8;
    let bytes = step * i.quals.vec.unwrap_or(1) as u32;
    Some((bytes, if bits >= 32 { step } else { bytes }))
}

/// Inserts an [`Inst::CheckAccess`] before every checked access of `p`'s
/// structured trees, numbering the sites in the order of the trees.
pub fn insert(p: &mut Program) {
    for f in &mut p.functions {
        let Some(tree) = &f.structured else { continue };
        let mut order = Vec::new();
        super::structurize::blocks(tree, &mut order);
        let mut seen = vec![false; f.blocks.len()];
        for id in order {
            if std::mem::replace(&mut seen[id.index()], true) {
                continue;
            }
            let b = &mut f.blocks[id.index()];
            if !b.insts.iter().any(is_checked) {
                continue;
            }
            let mut insts = Vec::with_capacity(b.insts.len() * 2);
            for inst in b.insts.drain(..) {
                if let Inst::Pisa(i) = &inst {
                    if let Some((bytes, align)) = access_size(i) {
                        let site = p.check_sites.len() as u32;
                        p.check_sites.push(i.span);
                        insts.push(Inst::CheckAccess(AccessCheck { site, bytes, align }));
                    }
                }
                insts.push(inst);
            }
            b.insts = insts;
        }
    }
}

fn is_checked(inst: &Inst) -> bool {
    matches!(inst, Inst::Pisa(i) if access_size(i).is_some())
}

/// Whether every [`Inst::CheckAccess`] of `insts` comes right before an
/// access it checks, with the size that access has (what [`super::verify`]
/// checks).
pub fn checks_fit(insts: &[Inst]) -> Result<(), String> {
    for (k, inst) in insts.iter().enumerate() {
        let Inst::CheckAccess(c) = inst else { continue };
        match insts.get(k + 1) {
            Some(Inst::Pisa(i)) if access_size(i) == Some((c.bytes, c.align)) => {}
            _ => {
                return Err(format!(
                    "check of site {} is not right before an access of {} bytes",
                    c.site, c.bytes
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> Program {
        let mut p = build(&crate::assemble("t.pisa", src).expect("assembles"));
        super::super::pipeline::Pipeline::for_target(&Default::default())
            .run(&mut p)
            .unwrap();
        p
    }

    /// Every access gets a check with its size and alignment, in order;
    /// `ld.param` and other instructions get none.
    #[test]
    fn checks_every_access_with_its_size() {
        let mut p = program(
            ".version 0.1;
.target 100;
.kernel @k(.param[8] %a)
{
	.reg .64b %p;
	.reg .32b %x;
	.reg .16b %h;
	.reg .v4.32b %v;
	.reg .v2.16b %w;
	ld.param.64b %p, [%a];
	ld.global.32b %x, [%p];
	ld.global.v4.32b %v, [%p];
	st.global.16b [%p], %h;
	ld.global.v2.16b %w, [%p];
	iatom.global.add.32b %x, [%p], %x;
	st.generic.release.16b [%p], %h;
	iadd.32b %x, %x, 1;
	return;
}
",
        );
        insert(&mut p);
        let checks: Vec<AccessCheck> = p.functions[0]
            .blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| match i {
                Inst::CheckAccess(c) => Some(*c),
                _ => None,
            })
            .collect();
        let want = [
            (0, 4, 4),
            (1, 16, 4),
            (2, 2, 2),
            (3, 4, 4),
            (4, 4, 4),
            (5, 2, 2),
        ]
        .map(|(site, bytes, align)| AccessCheck { site, bytes, align });
        assert_eq!(checks, want);
        assert_eq!(p.check_sites.len(), 6);
        for b in &p.functions[0].blocks {
            checks_fit(&b.insts).unwrap();
        }
    }

    /// A check must come right before an access of its size: a check left
    /// alone, or one before an access of another size, fails `verify`.
    #[test]
    fn a_check_must_precede_its_access() {
        let mut p = program(
            ".version 0.1;
.target 100;
.kernel @k(.param[8] %a)
{
\t.reg .64b %p;
\t.reg .32b %x;
\tld.param.64b %p, [%a];
\tld.global.32b %x, [%p];
\treturn;
}
",
        );
        insert(&mut p);
        let insts = &mut p.functions[0].blocks[0].insts;
        checks_fit(insts).unwrap();
        let check = AccessCheck {
            site: 0,
            bytes: 4,
            align: 4,
        };
        // before `ld.param`, which is not checked
        insts.insert(0, Inst::CheckAccess(check));
        assert!(checks_fit(insts).is_err());
        insts.remove(0);
        // at the end of the block
        insts.push(Inst::CheckAccess(check));
        assert!(checks_fit(insts).is_err());
        insts.pop();
        // with another size
        if let Some(Inst::CheckAccess(c)) = insts.get_mut(1) {
            c.bytes = 8;
        }
        assert_eq!(
            checks_fit(insts).unwrap_err(),
            "check of site 0 is not right before an access of 8 bytes"
        );
    }
}
