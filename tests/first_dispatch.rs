//! Drivers that compile a kernel at its first dispatch (Mesa's llvmpipe, in
//! lavapipe) compile it in `Runtime::prepare`, not in the launch: `prepare`
//! dispatches each new pipeline once with no work-groups. Otherwise the
//! compilation (seconds for big kernels) ran inside the first launch,
//! counted as kernel time and escaped `pisa run --compile-timeout`
//! (issue 11: "`--time` includes llvmpipe's JIT on first use").
//!
//! Observed through Mesa's shader cache, which llvmpipe writes when it has
//! compiled a kernel: a fresh cache directory must hold a compiled kernel
//! once `prepare` returns, before anything was launched. This file is its
//! own test process, because Mesa reads the cache settings once per process.

use pisa_vk_runtime::{Launch, NdRange, Runtime, RuntimeOptions};
use std::path::Path;
use std::time::{Duration, Instant};

const KERNEL: &str = ".version 0.1;
.target 100;
.kernel @k(.param[8] %o)
{
	.reg .64b %p;
	.reg .32b %v, %w;
	ld.param.64b %p, [%o];
	ld.global.32b %v, [%p];
	umul.32b %w, %v, 747796405;
	iadd.32b %w, %w, %v;
	st.global.32b [%p], %w;
	return;
}
";

/// Files under `dir` other than the cache's own bookkeeping (`index`, which
/// Mesa creates with the cache, and lock files).
fn cached_entries(dir: &Path) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                cached_entries(&p)
            } else {
                let name = e.file_name().to_string_lossy().into_owned();
                usize::from(name != "index" && !name.ends_with(".lock"))
            }
        })
        .sum()
}

#[test]
fn prepare_makes_the_driver_compile_before_the_launch() {
    let cache = std::env::temp_dir().join(format!("pisa-mesa-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    std::fs::create_dir_all(&cache).unwrap();
    // SAFETY (of the environment change): this test is the only one of its
    // process, and no other thread runs yet.
    unsafe {
        std::env::set_var("MESA_SHADER_CACHE_DIR", &cache);
        std::env::remove_var("MESA_SHADER_CACHE_DISABLE");
        std::env::remove_var("MESA_DISK_CACHE_SINGLE_FILE");
    }
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        pipeline_cache: false,
        ..Default::default()
    })
    .expect("a Vulkan device (CI installs lavapipe: mesa-vulkan-drivers)");
    if !rt.device_info().name.contains("llvmpipe") {
        return; // other drivers compile at pipeline creation, or cache elsewhere
    }
    let m = pisa_translator::assemble("k.pisa", KERNEL).unwrap();
    let program = rt.load(&m).unwrap();
    let buf = rt.alloc_buffer(4).unwrap();
    rt.upload(buf, 0, &5u32.to_le_bytes()).unwrap();
    let launch = Launch {
        program,
        kernel: "k".into(),
        range: NdRange::d1(1).local([1, 1, 1]),
        args: vec![rt.buffer_address(buf).unwrap().to_le_bytes().to_vec()],
    };
    // the runtime's own probes (e.g. of the driver's fma) may have compiled
    // kernels already: count what this kernel adds
    let before = cached_entries(&cache);
    rt.prepare(&launch).unwrap();
    // Mesa writes its cache from a background thread: wait for the entry
    let t = Instant::now();
    while cached_entries(&cache) == before && t.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        cached_entries(&cache) > before,
        "nothing was compiled by prepare (cache {}: {before} entries before and after)",
        cache.display()
    );
    rt.launch(&launch).unwrap();
    let want = 5u32.wrapping_mul(747796405).wrapping_add(5);
    assert_eq!(rt.download(buf).unwrap(), want.to_le_bytes());
    assert!(
        rt.validation_messages().is_empty(),
        "{:?}",
        rt.validation_messages()
    );
    drop(rt);
    let _ = std::fs::remove_dir_all(&cache);
}
