//! Packed half and bfloat16 instructions (`.hfx2`, `.bfx2`; spec 13, 16:
//! each 16-bit lane as the scalar form) on the Vulkan device, bit for bit
//! against the reference device over edge and random lane values (issue 9:
//! they were not lowered). Both lanes of one instruction see different
//! values, so a lane mix-up shows.

mod common;

use common::elementwise;
use pisa_interp::CpuDevice;
use pisa_vk_runtime::Device;

/// (instruction without the type, sources)
const FORMS: &[(&str, usize)] = &[
    ("fadd", 2),
    ("fsub.ftz", 2),
    ("fmul.dsat", 2),
    ("fmad", 3),
    ("fadd.rz", 2),
    ("fmul.ru", 2),
    ("fmad.rna", 3),
    ("fmin", 2),
    ("fmax.nanp", 2),
    ("fabs", 1),
    ("fneg.ftz", 1),
    ("fcmp.lt", 2),
    ("fcmp.ne", 2),
    ("frcp", 1),
    ("fsqrt.fast", 1),
    ("frsqrt.fast", 1),
    ("fexp2", 1),
    ("flog2.ftz", 1),
    ("ftanh", 1),
    ("fsin", 1),
    ("fcos.ftz", 1),
    ("pf2i.s16x2", 1),
    ("pf2i.u16x2", 1),
    // `{}`: the type, before the mode (rounded to integral values by the
    // IR pass `frnd`, then converted)
    ("pf2i.s16x2.{}.rd", 1),
    ("pf2i.u16x2.{}.ru", 1),
    ("pf2i.s16x2.{}.re", 1),
    ("pf2i.s16x2.{}.rna", 1),
];

fn kernel_name(form: &str, ty: &str) -> String {
    format!("{}_{ty}", form.replace('.', "_").replace("{}", "t"))
}

/// The instruction of `form` on `ty`.
fn mnemonic(form: &str, ty: &str) -> String {
    if form.contains("{}") {
        form.replace("{}", ty)
    } else {
        format!("{form}.{ty}")
    }
}

fn program() -> String {
    let mut src = String::from(".version 0.1;\n.target 100;\n");
    for ty in ["hfx2", "bfx2"] {
        for &(form, n) in FORMS {
            let regs: Vec<String> = (0..n).map(|i| format!("%s{i}")).collect();
            src.push_str(&format!(
                ".kernel @{}(.param[8] %in, .param[8] %out)\n{{\n\t.reg .64b %pi, %po, %off;\n\t.reg .v2.16b %d, {};\n\t.reg .32b %id;\n\tld.param.64b %pi, [%in];\n\tld.param.64b %po, [%out];\n\tumad.32b %id, %groupid.x, %enqueuedlocalsize.x, %localid.x;\n\tumul.full.32b %off, %id, {};\n\tiadd.64b %pi, %pi, %off;\n\tumul.full.32b %off, %id, 4;\n\tiadd.64b %po, %po, %off;\n",
                kernel_name(form, ty),
                regs.join(", "),
                4 * n
            ));
            for (i, r) in regs.iter().enumerate() {
                src.push_str(&format!("\tld.global.v2.16b {r}, [%pi + {}];\n", 4 * i));
            }
            src.push_str(&format!(
                "\t{} %d, {};\n\tst.global.v2.16b [%po], %d;\n\treturn;\n}}\n",
                mnemonic(form, ty),
                regs.join(", ")
            ));
        }
    }
    src
}

/// 32-bit words of two lanes: edge lane values (zeros, subnormals, the
/// largest finite values, infinities, NaNs, 1.0) and random encodings.
fn inputs(count: usize, seed: u64) -> Vec<u64> {
    let edges: [u64; 16] = [
        0, 0x8000, 1, 0x8001, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x3C00, 0xBC00, 0x7F7F,
        0x7F80, 0x3F80, 0x7FC0, 0x0080,
    ];
    let mut next = elementwise::random(seed);
    (0..count)
        .map(|_| {
            let mut lane = || {
                let r = next();
                if r.is_multiple_of(3) {
                    edges[((r >> 8) % 16) as usize]
                } else {
                    (r >> 16) & 0xFFFF
                }
            };
            lane() | lane() << 16
        })
        .collect()
}

#[test]
fn packed_forms_match_the_reference_device_bit_for_bit() {
    let m = pisa_translator::assemble("packed.pisa", &program()).unwrap_or_else(|d| panic!("{d}"));
    let spv = pisa_translator::spirv::translate_with(
        &m,
        &pisa_translator::spirv::Options::for_loop_cap(true).with_f64(true),
    )
    .unwrap();
    if let Some(r) = common::spirv_val(&spv.words, "vulkan1.2") {
        r.unwrap_or_else(|e| panic!("spirv-val: {e}"));
    }
    let mut vk = common::lavapipe();
    let mut cpu = CpuDevice::new();
    let vp = vk.load(&m).unwrap();
    let cp = cpu.load(&m).unwrap();
    for ty in ["hfx2", "bfx2"] {
        for (k, &(form, n)) in FORMS.iter().enumerate() {
            let kernel = kernel_name(form, ty);
            let ins = inputs(2048 * n, 0xFACE + k as u64);
            let want = elementwise::run(&mut cpu, cp, &kernel, (32, n), (32, 1), &ins);
            let got = elementwise::run(&mut vk, vp, &kernel, (32, n), (32, 1), &ins);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g,
                    w,
                    "{}{:x?}: {} gives {g:#010x}, the reference device {w:#010x}",
                    mnemonic(form, ty),
                    &ins[i * n..i * n + n],
                    vk.device_info().name
                );
            }
        }
    }
    let msgs = vk.validation_messages();
    assert!(msgs.is_empty(), "validation layer: {msgs:#?}");
}
