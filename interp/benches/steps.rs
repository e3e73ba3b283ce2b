//! Speed of the reference device in dynamic instructions per second, on
//! integer kernels (`cargo bench -p pisa-interp --bench steps`). One core:
//! work-groups run one after another.

use pisa_device::{Device, Launch, NdRange};
use pisa_interp::CpuDevice;
use std::time::Instant;

const LOOP: &str = r#".version 0.1;
.target 100;
.kernel @hash(.param[8] %out, .param[4] %n)
{
	.reg .32b %i, %num, %h, %t, %id;
	.reg .64b %o, %a;
	.pred %more;
	ld.param.64b %o, [%out];
	ld.param.32b %num, [%n];
	mov.32b %id, %localid.x;
	mov.32b %h, %id;
	mov.32b %i, 0;
spin:
	xor.32b %t, %h, %i;
	umul.32b %h, %t, 0x01000193;
	shr.32b %t, %h, 13;
	xor.32b %h, %h, %t;
	iadd.32b %i, %i, 1;
	ucmp.lt.32b %more, %i, %num;
	goto.cond %more, spin;
	zext.64b.32b %a, %id;
	shl.64b %a, %a, 2;
	iadd.64b %a, %a, %o;
	st.global.32b [%a], %h;
	return;
}
"#;

fn main() {
    let m = pisa_translator::assemble("hash.pisa", LOOP).expect("the bench kernel assembles");
    for (label, items, iters) in [
        ("hash loop, 1 item", 1u32, 3_000_000u32),
        ("hash loop, 256 items", 256, 20_000),
    ] {
        let mut dev = CpuDevice::new();
        let prog = dev.load(&m).expect("loads");
        let out = dev.alloc_buffer(4 * items as u64).expect("buffer");
        let addr = dev.buffer_address(out).expect("address");
        let launch = Launch {
            program: prog,
            kernel: "hash".into(),
            range: NdRange::d1(items).local([items.min(256), 1, 1]),
            args: vec![addr.to_le_bytes().to_vec(), iters.to_le_bytes().to_vec()],
        };
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            dev.launch(&launch).expect("runs");
            best = best.min(t.elapsed().as_secs_f64());
        }
        let steps = dev.last_steps as f64;
        println!(
            "{label}: {:.0} M instructions/s ({} instructions in {:.1} ms, best of 5)",
            steps / best / 1e6,
            dev.last_steps,
            best * 1e3
        );
    }
}
