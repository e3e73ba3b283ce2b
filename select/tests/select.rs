//! Opening devices by selector, and translating a module once for the
//! device it is opened on (issue "One typed instruction, one device
//! contract", item 2).

use pisa_select::{is_cpu, open_device, AnyDevice, OpenError, OpenOptions, Program};

const SRC: &str = ".version 0.1;\n.target 100;\n.kernel @a() { return; }\n";
const OTHER: &str = ".version 0.1;\n.target 100;\n.kernel @b() { return; }\n";

fn module(src: &str) -> pisa_translator::Module {
    pisa_translator::assemble("m.pisa", src).expect("assembles")
}

fn kernel_names(dev: &mut AnyDevice, prog: pisa_device::ProgramId) -> Vec<String> {
    let ks = dev.get().kernels(prog).expect("kernels");
    ks.into_iter().map(|k| k.name).collect()
}

#[test]
fn cpu_selectors() {
    assert!(is_cpu(Some("cpu"), Some(1)));
    assert!(is_cpu(Some("CPU"), Some(1)));
    // the cpu device's index follows the Vulkan devices
    assert!(is_cpu(Some("1"), Some(1)));
    assert!(!is_cpu(Some("0"), Some(1)));
    assert!(!is_cpu(Some("llvmpipe"), Some(1)));
    assert!(!is_cpu(None, Some(1)));
}

#[test]
fn cpu_opens_the_reference_device_and_refuses_spirv() {
    let m = module(SRC);
    let o = OpenOptions {
        device: Some("cpu".into()),
        ..Default::default()
    };
    let mut opened = open_device(Program::Pisa(&m), &o).expect("opens");
    assert!(matches!(opened.dev, AnyDevice::Cpu(_)));
    assert_eq!(opened.dev.info().name, pisa_interp::CPU_DEVICE_NAME);
    assert_eq!(kernel_names(&mut opened.dev, opened.prog), ["a"]);
    let e = open_device(Program::Spirv(&[0x0723_0203]), &o)
        .err()
        .expect("refused");
    assert!(matches!(e, OpenError::SpirvOnCpu));
    assert_eq!(
        e.to_string(),
        "the cpu device runs PISA programs, not SPIR-V modules"
    );
}

/// The runtime loads the translation made before it existed when its
/// options are the runtime's: loading module A with a translation of B
/// (made with the same options) gives B's kernels, so A was not translated
/// again; with other options, A is translated for the device.
#[test]
fn a_module_is_translated_once_for_its_device() {
    let Ok(devs) = pisa_vk_runtime::list_devices() else {
        eprintln!("no Vulkan: skipped");
        return;
    };
    if devs.is_empty() {
        return;
    }
    let i = pisa_vk_runtime::select_device(&devs, None).expect("a device");
    let (a, b) = (module(SRC), module(OTHER));
    let mut rt = pisa_vk_runtime::Runtime::new(Default::default()).expect("runtime");
    assert_eq!(rt.device_info().name, devs[i].name);
    let mut t = pisa_vk_runtime::translate_for(&a, &devs[i], false).expect("translates");
    t.spirv = pisa_translator::spirv::translate_with(&b, &t.options).expect("translates");
    let p = rt.load_pretranslated(&a, t).expect("loads");
    let names: Vec<String> = rt.kernels(p).unwrap().into_iter().map(|k| k.name).collect();
    assert_eq!(names, ["b"], "the translation given was loaded");
    let mut t = pisa_vk_runtime::translate_for(&a, &devs[i], false).expect("translates");
    t.options.unroll_loops = !t.options.unroll_loops;
    t.spirv = pisa_translator::spirv::translate_with(&b, &t.options).expect("translates");
    let p = rt.load_pretranslated(&a, t).expect("loads");
    let names: Vec<String> = rt.kernels(p).unwrap().into_iter().map(|k| k.name).collect();
    assert_eq!(names, ["a"], "translated again for the device's options");
}

#[test]
fn a_vulkan_name_that_matches_no_device_is_an_error() {
    let m = module(SRC);
    let o = OpenOptions {
        device: Some("no such device anywhere".into()),
        ..Default::default()
    };
    match open_device(Program::Pisa(&m), &o) {
        Err(OpenError::Start(e)) => assert!(
            e.to_string().contains("no Vulkan device matches")
                || e.to_string().contains("no Vulkan"),
            "{e}"
        ),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("opened"),
    }
}
