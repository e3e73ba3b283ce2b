//! Kernel entry points and what the runtime supplies to them (docs/abi.md):
//! the push-constant block, built-in variables, the work-group size as
//! specialization constants, and the range guard for partial work-groups.

use super::error::TranslateError;
use super::error::R;
use super::function::{fn_type, FunctionCx};
use super::types::ModuleCx;
// the push-constant block is the ABI's (re-exported by `spirv`)
pub use crate::abi::{is_address_member, Push, PUSH_BYTES, PUSH_MEMBERS};
use crate::ir::{FuncKind, SpecialRef};
use rspirv::dr::Operand as SOp;
use rspirv::spirv::{self, BuiltIn, Decoration, StorageClass, Word};

impl ModuleCx<'_> {
    fn push_var(&mut self) -> Word {
        if let Some(p) = self.interface.push_constants {
            return p;
        }
        let u32t = self.uint(32);
        let uv2 = self.vec(u32t, 2);
        let members: Vec<Word> = (0..PUSH_MEMBERS.len())
            .map(|i| if is_address_member(i) { uv2 } else { u32t })
            .collect();
        let st = self.b.type_struct_id(None, members);
        self.b.decorate(st, Decoration::Block, []);
        for (i, (name, off)) in PUSH_MEMBERS.iter().enumerate() {
            self.b
                .member_decorate(st, i as u32, Decoration::Offset, [SOp::LiteralBit32(*off)]);
            self.b.member_name(st, i as u32, *name);
        }
        self.b.name(st, "PisaLaunch");
        let pt = self.ptr(StorageClass::PushConstant, st);
        let v = self.global_var(pt, StorageClass::PushConstant);
        self.b.name(v, "pisa_launch");
        self.interface.push(v);
        self.interface.push_constants = Some(v);
        v
    }

    fn builtin(&mut self, bi: BuiltIn, name: &str) -> Word {
        if let Some(&v) = self.interface.builtins.get(&(bi as u32)) {
            return v;
        }
        let u32t = self.uint(32);
        let v3 = self.vec(u32t, 3);
        let pt = self.ptr(StorageClass::Input, v3);
        let v = self.global_var(pt, StorageClass::Input);
        self.b.decorate(v, Decoration::BuiltIn, [SOp::BuiltIn(bi)]);
        self.b.name(v, name);
        self.interface.push(v);
        self.interface.builtins.insert(bi as u32, v);
        v
    }

    /// The work-group size: specialization constants 0, 1, 2 (default 1)
    /// decorated `WorkgroupSize`, so the runtime picks it per launch.
    /// Specialization constant 3 (`bool`, default true): whether kernel
    /// entry points skip work-items outside the global size (docs/abi.md).
    pub fn range_check_constant(&mut self) -> Word {
        if let Some(c) = self.interface.range_check {
            return c;
        }
        let bt = self.bool_ty();
        let c = self.b.spec_constant_true(bt);
        self.b.decorate(
            c,
            Decoration::SpecId,
            [SOp::LiteralBit32(RANGE_CHECK_SPEC_ID)],
        );
        self.b.name(c, "pisa_check_global_size");
        self.interface.range_check = Some(c);
        c
    }

    pub fn wg_size(&mut self) -> Word {
        if let Some(w) = self.interface.wg_size {
            return w;
        }
        let u32t = self.uint(32);
        let v3 = self.vec(u32t, 3);
        let comps: Vec<Word> = (0..3)
            .map(|i| {
                let c = self.b.spec_constant_bit32(u32t, 1);
                self.b
                    .decorate(c, Decoration::SpecId, [SOp::LiteralBit32(i)]);
                c
            })
            .collect();
        let w = self.b.spec_constant_composite(v3, comps);
        self.b.decorate(
            w,
            Decoration::BuiltIn,
            [SOp::BuiltIn(BuiltIn::WorkgroupSize)],
        );
        self.b.name(w, "pisa_work_group_size");
        self.interface.wg_size = Some(w);
        w
    }

    /// Loads a push-constant member (`index` into [`PUSH_MEMBERS`]). The
    /// 32-bit members (sizes, offsets, `%workdim`) are values a kernel
    /// computes with, read through [`Self::hide_from_uniformity`]; the
    /// address members are bases of accesses (`base + offset`), left
    /// visible so that llvmpipe loads a kernel parameter or a variable at a
    /// fixed offset once for the whole SIMD vector.
    pub fn push_load(&mut self, index: u32) -> R<Word> {
        let v = self.push_var();
        let u32t = self.uint(32);
        let address = is_address_member(index as usize);
        let t = if address { self.vec(u32t, 2) } else { u32t };
        let pt = self.ptr(StorageClass::PushConstant, t);
        let idx = self.const_u32(index);
        let p = self.b.access_chain(pt, None, v, [idx])?;
        let loaded = self.b.load(t, None, p, None, [])?;
        if address {
            return Ok(loaded);
        }
        self.hide_from_uniformity(loaded, 32)
    }

    /// A condition that is always false but not to any compiler:
    /// `num_groups.x == 0` (a dispatch has at least one group). The exits of
    /// loops the driver might cut short, and [`Self::hidden_zero`].
    pub fn never(&mut self) -> R<Word> {
        let groups = self.builtin_elem(BuiltIn::NumWorkgroups, "pisa_num_groups", 0)?;
        let zero = self.const_u32(0);
        let bt = self.bool_ty();
        Ok(self.b.i_equal(bt, None, groups, zero)?)
    }

    /// A `bits`-wide zero no compiler can see is zero: [`Self::never`] as 1
    /// or 0. `FunctionCx::opaque` and [`Self::hide_from_uniformity`] OR it
    /// into a value, always as the first operand.
    pub fn hidden_zero(&mut self, bits: u16) -> R<Word> {
        let never = self.never()?;
        let t = self.uint(bits);
        let (one, zero) = (self.const_uint(bits, 1), self.const_uint(bits, 0));
        Ok(self.b.select(t, None, never, one, zero)?)
    }

    /// `hidden_zero | v` (`v` an integer of `bits`) with
    /// [`crate::spirv::Options::opaque_push_constants`] (llvmpipe), else `v`:
    /// for the push constants a kernel computes with, and the addresses of
    /// variables taken as values (`addrof`, `addrcast`, `%printfbuffer`).
    ///
    /// Why: Mesa 22.3's llvmpipe asks of the address of every load whether
    /// it is uniform (`nir_src_is_always_uniform`), which walks each ALU
    /// instruction's operands in order, without remembering what it saw,
    /// until one is not uniform; constants and push constants are. A
    /// computation whose every leaf is one of them, with values used twice
    /// (`x = x * x + 1` forty times on `%globalsize.x` or on a variable's
    /// address; a math-library call then `fsqrt`'s exact rounding, fuzz
    /// seed 7000096), took that walk exponential time and the compile never
    /// ended. `NumWorkgroups` is a built-in input, not uniform to the walk,
    /// so it stops at the first operand of every hidden value. The push
    /// constants left visible are the bases of accesses, never inside such
    /// a computation: every other value that is not a constant then reaches
    /// a non-uniform leaf through its first operand that is not a constant,
    /// and the walk is linear (`tests/run/uniform_walk.pisa`).
    pub fn hide_from_uniformity(&mut self, v: Word, bits: u16) -> R<Word> {
        if !self.options.opaque_push_constants {
            return Ok(v);
        }
        self.or_hidden_zero(v, bits)
    }

    /// `hidden_zero | v`, always `v`, the hidden zero first (the shape both
    /// [`Self::hide_from_uniformity`] and `FunctionCx::opaque` emit).
    pub fn or_hidden_zero(&mut self, v: Word, bits: u16) -> R<Word> {
        let z = self.hidden_zero(bits)?;
        let t = self.uint(bits);
        Ok(self.b.bitwise_or(t, None, z, v)?)
    }

    /// A 64-bit address held in the push constants (data base, params).
    pub fn push_addr(&mut self, which: Push) -> R<Word> {
        let v = self.push_load(which as u32)?;
        let u64t = self.uint(64);
        Ok(self.b.bitcast(u64t, None, v)?)
    }

    pub(super) fn builtin_elem(&mut self, bi: BuiltIn, name: &str, d: u32) -> R<Word> {
        let var = self.builtin(bi, name);
        let u32t = self.uint(32);
        let v3 = self.vec(u32t, 3);
        let v = self.b.load(v3, None, var, None, [])?;
        Ok(self.b.composite_extract(u32t, None, v, [d])?)
    }

    /// `%groupid`: the dispatch's group id plus the group offset of the
    /// region being dispatched.
    pub(super) fn group_id(&mut self, d: u32) -> R<Word> {
        let g = self.builtin_elem(BuiltIn::WorkgroupId, "pisa_group_id", d)?;
        let off = self.push_load(Push::GroupOffsetX as u32 + d)?;
        let u32t = self.uint(32);
        Ok(self.b.i_add(u32t, None, g, off)?)
    }

    fn wg_elem(&mut self, d: u32) -> R<Word> {
        let w = self.wg_size();
        let u32t = self.uint(32);
        Ok(self.b.composite_extract(u32t, None, w, [d])?)
    }

    /// The work-item's linear id in its work-group: x + y·sx + z·sx·sy (the
    /// order sub-groups take work-items in, spec 01).
    pub fn local_linear_id(&mut self) -> R<Word> {
        let u32t = self.uint(32);
        let x = self.builtin_elem(BuiltIn::LocalInvocationId, "pisa_local_id", 0)?;
        let y = self.builtin_elem(BuiltIn::LocalInvocationId, "pisa_local_id", 1)?;
        let z = self.builtin_elem(BuiltIn::LocalInvocationId, "pisa_local_id", 2)?;
        let sx = self.wg_elem(0)?;
        let sy = self.wg_elem(1)?;
        let zy = self.b.i_mul(u32t, None, z, sy)?;
        let zy = self.b.i_add(u32t, None, zy, y)?;
        let row = self.b.i_mul(u32t, None, zy, sx)?;
        Ok(self.b.i_add(u32t, None, row, x)?)
    }
}

impl FunctionCx<'_, '_> {
    /// Reads a special register (spec 04): (value, bits).
    pub fn special(&mut self, r: &SpecialRef) -> R<(Word, u16)> {
        let name = self.tx.program.name(r.name).to_string();
        let d = r.swizzle.map_or(0, |s| s.first as u32);
        let tx = &mut *self.tx;
        let u32t = tx.uint(32);
        Ok(match name.as_str() {
            "localid" => (
                tx.builtin_elem(BuiltIn::LocalInvocationId, "pisa_local_id", d)?,
                32,
            ),
            "groupid" => (tx.group_id(d)?, 32),
            // the whole NDRange's count, not the dispatched region's:
            // ceil(global size / enqueued local size)
            "groupcount" => {
                let size = tx.push_load(Push::GlobalSizeX as u32 + d)?;
                let enq = tx.push_load(Push::EnqueuedX as u32 + d)?;
                let one = tx.const_u32(1);
                let m1 = tx.b.i_sub(u32t, None, enq, one)?;
                let up = tx.b.i_add(u32t, None, size, m1)?;
                (tx.b.u_div(u32t, None, up, enq)?, 32)
            }
            "enqueuedlocalsize" => (tx.push_load(Push::EnqueuedX as u32 + d)?, 32),
            // the runtime dispatches a partial last work-group with its own,
            // smaller work-group size (docs/abi.md)
            "localsize" => (tx.wg_elem(d)?, 32),
            "globalsize" | "globaloffset" => {
                let base = if name == "globalsize" {
                    Push::GlobalSizeX
                } else {
                    Push::GlobalOffsetX
                };
                let v = tx.push_load(base as u32 + d)?;
                let u64t = tx.uint(64);
                (tx.b.u_convert(u64t, None, v)?, 64)
            }
            "workdim" => (tx.push_load(Push::WorkDim as u32)?, 32),
            // sub-groups are the work-group's work-items in linear order,
            // 32 at a time (docs/spec-notes.md, "Sub-groups")
            "laneid" => {
                let id = tx.local_linear_id()?;
                let m = tx.const_u32(31);
                (tx.b.bitwise_and(u32t, None, id, m)?, 32)
            }
            "subgroupsize" => (tx.const_u32(32), 32),
            // the runtime allocates the buffer and decodes it after the
            // launch (docs/abi.md, "The printf buffer")
            "printfbuffer" => {
                let v = tx.push_addr(Push::PrintfBuffer)?;
                (tx.hide_from_uniformity(v, 64)?, 64)
            }
            // the `simt` pass replaces every read by a register
            "activemask" => {
                return Err(TranslateError::Internal(
                    "%activemask outside SIMT mode (the `simt` pass reads it into a register)"
                        .into(),
                ))
            }
            _ => return Err(self.unsupported(r.span, format!("special register %{name}"))),
        })
    }
}

/// The specialization constant that turns the entry points' global-size
/// check on (the default) or off.
pub const RANGE_CHECK_SPEC_ID: u32 = 3;

/// One GLCompute entry point per kernel: a wrapper that skips work-items
/// outside the global size and calls the kernel body.
pub fn emit_entry_points(tx: &mut ModuleCx) -> Result<(), TranslateError> {
    let kernels: Vec<&crate::ir::Function> = tx
        .functions()
        .map(|(_, f)| f)
        .filter(|f| f.kind == FuncKind::Kernel && !f.is_declaration())
        .collect();
    if kernels.is_empty() {
        return Ok(());
    }
    let mut entries = Vec::new();
    for k in kernels {
        let void = tx.void();
        let fty = tx.b.type_function(void, []);
        let f =
            tx.b.begin_function(void, None, spirv::FunctionControl::NONE, fty)?;
        let kname = tx.program.name(k.name).to_string();
        tx.b.name(f, format!("{kname}.entry"));
        tx.b.begin_block(None)?;
        let bt = tx.bool_ty();
        let u32t = tx.uint(32);
        if tx.atomics.shared_locks.is_some() {
            // the locks of emulated shared atomics start free: cleared by
            // the group's first work-item, before the range check so that
            // every work-item reaches the barrier that follows
            let mut first = tx.const_bool(true);
            for d in 0..3 {
                let l = tx.builtin_elem(BuiltIn::LocalInvocationId, "pisa_local_id", d)?;
                let zero = tx.const_u32(0);
                let is0 = tx.b.i_equal(bt, None, l, zero)?;
                first = tx.b.logical_and(bt, None, first, is0)?;
            }
            super::lower::atomics::zero_shared_locks(tx, first)?;
        }
        let mut inside = tx.const_bool(true);
        for d in 0..3 {
            let g = tx.group_id(d)?;
            let l = tx.builtin_elem(BuiltIn::LocalInvocationId, "pisa_local_id", d)?;
            let wg = tx.push_load(Push::EnqueuedX as u32 + d)?;
            let gl = tx.b.i_mul(u32t, None, g, wg)?;
            let id = tx.b.i_add(u32t, None, gl, l)?;
            let size = tx.push_load(Push::GlobalSizeX as u32 + d)?;
            let ok = tx.b.u_less_than(bt, None, id, size)?;
            inside = tx.b.logical_and(bt, None, inside, ok)?;
        }
        // the runtime turns the check off (it never dispatches a work-item
        // outside the global size), so the driver folds it away
        let check = tx.range_check_constant();
        let skip_check = tx.b.logical_not(bt, None, check)?;
        let inside = tx.b.logical_or(bt, None, skip_check, inside)?;
        let run = tx.b.id();
        let end = tx.b.id();
        tx.b.selection_merge(end, spirv::SelectionControl::NONE)?;
        tx.b.branch_conditional(inside, run, end, [])?;
        tx.b.begin_block(Some(run))?;
        let (_, _, _) = fn_type(tx, k);
        let body = tx.ids.functions[&k.name];
        tx.b.function_call(void, None, body, [])?;
        super::checked::emit_report(tx)?;
        tx.b.branch(end)?;
        tx.b.begin_block(Some(end))?;
        tx.b.ret()?;
        tx.b.end_function()?;
        let reqd = tx
            .layout
            .kernels
            .iter()
            .find(|l| l.name == kname)
            .and_then(|l| l.reqd_work_group_size)
            .unwrap_or([1, 1, 1]);
        entries.push((f, kname, reqd));
    }
    tx.wg_size();
    // the interface lists every module-scope variable any function uses
    let iface = tx.interface.vars.clone();
    for (f, name, reqd) in entries {
        tx.b.entry_point(spirv::ExecutionModel::GLCompute, f, name, &iface);
        tx.b.execution_mode(f, spirv::ExecutionMode::LocalSize, reqd);
        // PISA's arithmetic is IEEE's (03): the sign of zero results
        // matters (`x + 0.0` is not `x` when x is -0), and infinities and
        // NaNs are values; Vulkan lets drivers ignore that unless asked
        for (i, bits) in [16u16, 32, 64].into_iter().enumerate() {
            if tx.options.signed_zero_inf_nan_preserve[i] && tx.uses_float(bits) {
                tx.cap(spirv::Capability::SignedZeroInfNanPreserve);
                tx.b.execution_mode(
                    f,
                    spirv::ExecutionMode::SignedZeroInfNanPreserve,
                    [bits as u32],
                );
            }
            // and denormals, where the driver was found to flush them
            if tx.options.denorm_preserve[i] && tx.uses_float(bits) {
                tx.cap(spirv::Capability::DenormPreserve);
                tx.b.execution_mode(f, spirv::ExecutionMode::DenormPreserve, [bits as u32]);
            }
        }
    }
    Ok(())
}
