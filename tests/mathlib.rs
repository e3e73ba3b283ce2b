//! The bundled math library (`translator/src/ir/mathlib/`) run by the
//! reference device, against the reference device's own correctly rounded
//! float core: every 16-bit input of every form (`fsin`, `fcos`, `fexp2`,
//! `flog2`, `ftanh`, `frsqrt.fast` on `.hf`/`.bf`, with and without `.ftz`), edge and
//! random f32 inputs, and the packed forms. Bit for bit: the library rounds
//! once from f64, so it must give the correctly rounded result wherever
//! f64's own error does not reach a rounding boundary (which the
//! exhaustive f32 runs of `examples/ulp.rs` never found). No GPU needed:
//! the Vulkan side of the same library is `tests/float_bounds.rs`.

mod common;

use common::elementwise;
use pisa_interp::CpuDevice;
use pisa_translator::ir;
use pisa_vk_runtime::{Device, ProgramId};

const OPS: &[&str] = &["fsin", "fcos", "fexp2", "flog2", "ftanh", "frsqrt"];

/// The mnemonic of `op` on `ty` (`frsqrt` has only its `.fast` form).
fn form(op: &str, ftz: &str, ty: &str) -> String {
    let fast = if op == "frsqrt" { ".fast" } else { "" };
    format!("{op}{ftz}{fast}.{ty}")
}

fn kernel_name(form: &str) -> String {
    form.replace('.', "_")
}

/// One kernel per form: `out[i] = form(in[i])` (16-bit forms on 16-bit
/// elements, packed ones on 32-bit words).
fn program() -> String {
    let mut src = String::from(".version 0.1;\n.target 100;\n");
    for op in OPS {
        for ftz in ["", ".ftz"] {
            for (ty, bits, reg) in [
                ("f", 32, ".32b"),
                ("hf", 16, ".16b"),
                ("bf", 16, ".16b"),
                ("hfx2", 32, ".v2.16b"),
                ("bfx2", 32, ".v2.16b"),
            ] {
                let form = form(op, ftz, ty);
                let bytes = bits / 8;
                let mov = if reg == ".v2.16b" {
                    "v2.16b"
                } else {
                    &reg[1..]
                };
                src.push_str(&format!(
                    ".kernel @{}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off;\n\t.reg {reg} %s, %d;\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {bytes};\n\tiadd.64b %pi, %pi, %off;\n\tiadd.64b %po, %po, %off;\n\tld.global.{mov} %s, [%pi];\n\t{form} %d, %s;\n\tst.global.{mov} [%po], %d;\n\treturn;\n}}\n",
                    kernel_name(&form)
                ));
            }
        }
    }
    src
}

/// The reference device with the program as written (its own float core),
/// and with the library linked in (what Vulkan devices run).
fn devices() -> (CpuDevice, ProgramId, ProgramId) {
    let src = program();
    let m = pisa_translator::assemble("mathlib.pisa", &src).unwrap_or_else(|d| panic!("{d}"));
    let mut cpu = CpuDevice::new();
    let reference = cpu.load(&m).unwrap();
    let mut linked = ir::build(&m);
    ir::mathlib::link(&mut linked);
    let library = cpu.load_program(&linked, &src).unwrap();
    (cpu, reference, library)
}

fn compare(
    cpu: &mut CpuDevice,
    (a, b): (ProgramId, ProgramId),
    form: &str,
    bits: u32,
    ins: &[u64],
) {
    let kernel = kernel_name(form);
    let want = elementwise::run(cpu, a, &kernel, (bits, 1), (bits, 1), ins);
    let got = elementwise::run(cpu, b, &kernel, (bits, 1), (bits, 1), ins);
    let wrong: Vec<String> = ins
        .iter()
        .zip(got.iter().zip(&want))
        .filter(|(_, (g, w))| g != w)
        .take(8)
        .map(|(i, (g, w))| format!("{i:#x} gives {g:#x}, want {w:#x}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "{form} through the library: {}",
        wrong.join("; ")
    );
}

/// The quick tier (`PISA_NUMERICS_QUICK=1`): the mutation run's sample
/// (docs/testing.md, "The numerics passes"), a tenth or less of CI's.
fn quick_tier() -> bool {
    std::env::var("PISA_NUMERICS_QUICK").is_ok_and(|v| v == "1")
}

#[test]
fn every_16_bit_input_is_correctly_rounded() {
    let (mut cpu, reference, library) = devices();
    // in the quick tier every 11th, and every encoding of the top and
    // bottom exponents
    let all: Vec<u64> = (0..=0xFFFFu64)
        .filter(|x| !quick_tier() || x % 11 == 0 || matches!(x & 0x7FFF, 0..=0x3FF | 0x7800..))
        .collect();
    for op in OPS {
        for ftz in ["", ".ftz"] {
            for ty in ["hf", "bf"] {
                compare(&mut cpu, (reference, library), &form(op, ftz, ty), 16, &all);
            }
        }
    }
}

#[test]
fn f32_edge_and_random_inputs_are_correctly_rounded() {
    let (mut cpu, reference, library) = devices();
    let mut ins: Vec<u64> = vec![
        0,
        0x8000_0000,
        1,
        0x8000_0001,
        0x007F_FFFF,
        0x0080_0000,
        0x7F7F_FFFF,
        0xFF7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F80_0001,
        0xFFA0_0000,
        0x3F80_0000,
        0xBF80_0000,
        0x3F00_0000,
        0x3F7F_FFFF,
        0x3F80_0001,
        0x4000_0000,
        0x42C8_0000,
        0xC2C8_0000,
        0x4300_0000,
        0xC316_0000,
        0x4049_0FDB,
        0x3FC9_0FDB,
        0x3F49_0FDB,
        0x5F80_0000,
        0x4B80_0000,
        0x4F00_0000,
        0x7E00_0000,
        0x4120_0000,
        0xC120_0000,
    ];
    let mut next = elementwise::random(0x5EED);
    let random = if quick_tier() { 1024 } else { 8192 };
    ins.extend((0..random).map(|_| next() >> 32));
    for op in OPS {
        for ftz in ["", ".ftz"] {
            compare(
                &mut cpu,
                (reference, library),
                &form(op, ftz, "f"),
                32,
                &ins,
            );
        }
    }
}

#[test]
fn packed_forms_apply_the_scalar_form_to_each_lane() {
    let (mut cpu, reference, library) = devices();
    let mut next = elementwise::random(0xB0B);
    let ins: Vec<u64> = (0..4096)
        .map(|i| match i % 4 {
            0 => 0x7C01_3C00 | (i as u64 & 0xFF),
            1 => 0x8000_FC00,
            _ => next() >> 32,
        })
        .collect();
    for op in OPS {
        for ftz in ["", ".ftz"] {
            for ty in ["hfx2", "bfx2"] {
                compare(&mut cpu, (reference, library), &form(op, ftz, ty), 32, &ins);
            }
        }
    }
}

/// Immediate sources (decimal floats, decimal integers, hex encodings)
/// mean the same value through the library as on the reference device.
#[test]
fn immediate_sources_keep_their_values() {
    let src = ".version 0.1;
.target 100;
.kernel @k(.param[8] %out)
{
	.reg .64b %po;
	.reg .32b %a, %b, %c;
	.reg .16b %h, %g, %e;
	ld.param.64b %po, [%out];
	fsin.f %a, 0.1;
	fcos.ftz.f %b, 0x3F800000;
	flog2.f %c, 3;
	fexp2.hf %h, 0.3;
	ftanh.bf %g, -2;
	frsqrt.fast.hf %e, 0x4400;
	st.global.32b [%po], %a;
	st.global.32b [%po + 4], %b;
	st.global.32b [%po + 8], %c;
	st.global.16b [%po + 12], %h;
	st.global.16b [%po + 14], %g;
	st.global.16b [%po + 16], %e;
	return;
}
";
    let m = pisa_translator::assemble("imm.pisa", src).unwrap_or_else(|d| panic!("{d}"));
    let mut cpu = CpuDevice::new();
    let reference = cpu.load(&m).unwrap();
    let mut linked = ir::build(&m);
    ir::mathlib::link(&mut linked);
    let library = cpu.load_program(&linked, src).unwrap();
    let mut outs = Vec::new();
    for p in [reference, library] {
        let o = cpu.alloc_buffer(18).unwrap();
        cpu.launch(&pisa_vk_runtime::Launch {
            program: p,
            kernel: "k".into(),
            range: pisa_vk_runtime::NdRange::d1(1),
            args: vec![cpu.buffer_address(o).unwrap().to_le_bytes().to_vec()],
        })
        .unwrap();
        outs.push(cpu.download(o).unwrap());
    }
    assert_eq!(outs[0], outs[1]);
    // sin(0.1f) = 0x3DCC7577, cos(1) = 0x3F0A5140, log2(3) = 0x3FCAE00D
    assert_eq!(
        &outs[0][..12],
        &[0x77, 0x75, 0xCC, 0x3D, 0x40, 0x51, 0x0A, 0x3F, 0x0D, 0xE0, 0xCA, 0x3F]
    );
}
