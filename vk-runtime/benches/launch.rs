//! Launch overhead and module-load times, on the default device.
//!
//! 1. Median time of launch + wait of an empty kernel through the runtime,
//!    against a minimal hand-written `ash` dispatch of the same SPIR-V
//!    (record, submit, wait) in the same process. Target ratio: <= 1.2.
//! 2. Loading a module (translate, pipeline creation, first dispatch) with
//!    a cold and a warm pipeline cache.
//!
//! `cargo bench -p pisa-vk-runtime --bench launch`

use ash::vk;
use pisa_vk_runtime::{Launch, NdRange, Runtime, RuntimeOptions};
use std::time::{Duration, Instant};

const EMPTY: &str = ".version 0.1;\n.target 100;\n.kernel @empty()\n{\n\treturn;\n}\n";
const ITERS: usize = 2000;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The same SPIR-V dispatched with nothing but ash: one pipeline, one
/// command buffer and fence reused; per launch: record, submit, wait.
fn raw_ash(words: &[u32]) -> Duration {
    unsafe {
        let entry = ash::Entry::load().unwrap();
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
        let inst = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .unwrap();
        let pdev = inst.enumerate_physical_devices().unwrap()[0];
        let qf = inst
            .get_physical_device_queue_family_properties(pdev)
            .iter()
            .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .unwrap() as u32;
        let prio = [1.0];
        let qi = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(qf)
            .queue_priorities(&prio)];
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default().buffer_device_address(true);
        let dev = inst
            .create_device(
                pdev,
                &vk::DeviceCreateInfo::default()
                    .queue_create_infos(&qi)
                    .push_next(&mut v12),
                None,
            )
            .unwrap();
        let queue = dev.get_device_queue(qf, 0);
        let sm = dev
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(words), None)
            .unwrap();
        let range = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(pisa_translator::abi::PUSH_BYTES)];
        let layout = dev
            .create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&range),
                None,
            )
            .unwrap();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(sm)
            .name(c"empty");
        let pipe = dev
            .create_compute_pipelines(
                vk::PipelineCache::null(),
                &[vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(layout)],
                None,
            )
            .unwrap()[0];
        let pool = dev
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(qf)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )
            .unwrap();
        let cmd = dev
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )
            .unwrap()[0];
        let fence = dev
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        // global size 1 in the push constants, everything else zero
        let mut pc = vec![0u8; pisa_translator::abi::PUSH_BYTES as usize];
        pc[32..36].copy_from_slice(&1u32.to_le_bytes());
        pc[28..32].copy_from_slice(&1u32.to_le_bytes());
        pc[56..60].copy_from_slice(&1u32.to_le_bytes());
        let mut times = Vec::new();
        for i in 0..ITERS + 100 {
            let t = Instant::now();
            dev.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            dev.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipe);
            dev.cmd_push_constants(cmd, layout, vk::ShaderStageFlags::COMPUTE, 0, &pc);
            dev.cmd_dispatch(cmd, 1, 1, 1);
            dev.end_command_buffer(cmd).unwrap();
            let cmds = [cmd];
            dev.queue_submit(
                queue,
                &[vk::SubmitInfo::default().command_buffers(&cmds)],
                fence,
            )
            .unwrap();
            dev.wait_for_fences(&[fence], true, u64::MAX).unwrap();
            dev.reset_fences(&[fence]).unwrap();
            if i >= 100 {
                times.push(t.elapsed());
            }
        }
        dev.device_wait_idle().unwrap();
        dev.destroy_fence(fence, None);
        dev.destroy_command_pool(pool, None);
        dev.destroy_pipeline(pipe, None);
        dev.destroy_pipeline_layout(layout, None);
        dev.destroy_shader_module(sm, None);
        dev.destroy_device(None);
        inst.destroy_instance(None);
        median(times)
    }
}

fn main() {
    let m = pisa_translator::assemble("empty.pisa", EMPTY).unwrap();
    let spv = pisa_translator::spirv::translate(&m).unwrap();
    // the baseline runs before and after, and the faster median counts, so
    // machine noise cannot flatter the ratio
    let raw_before = raw_ash(&spv.words);

    let mut rt = Runtime::new(RuntimeOptions {
        validation: false,
        pipeline_cache: false,
        ..Default::default()
    })
    .unwrap();
    let device = rt.device_info().name.clone();
    let p = rt.load(&m).unwrap();
    let l = Launch {
        program: p,
        kernel: "empty".into(),
        range: NdRange::d1(1).local([1, 1, 1]),
        args: vec![],
    };
    let mut times = Vec::new();
    for i in 0..ITERS + 100 {
        let t = Instant::now();
        rt.launch(&l).unwrap();
        if i >= 100 {
            times.push(t.elapsed());
        }
    }
    let ours = median(times);
    drop(rt);
    let raw = raw_before.min(raw_ash(&spv.words));
    println!(
        "launch + wait, empty kernel, median of {ITERS}: pisa runtime {:.1} us, raw ash {:.1} us, ratio {:.2} ({})",
        ours.as_secs_f64() * 1e6,
        raw.as_secs_f64() * 1e6,
        ours.as_secs_f64() / raw.as_secs_f64(),
        device
    );

    // module load: translate + pipeline + first dispatch, cold vs warm cache
    let dir = std::env::temp_dir().join(format!("pisa-bench-cache-{}", std::process::id()));
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shaders/reduce.pisa"
    ))
    .unwrap();
    let rm = pisa_translator::assemble("reduce.pisa", &src).unwrap();
    let load = |label: &str| {
        std::env::set_var("XDG_CACHE_HOME", &dir);
        let mut rt = Runtime::new(RuntimeOptions {
            validation: false,
            pipeline_cache: true,
            ..Default::default()
        })
        .unwrap();
        let t = Instant::now();
        let p = rt.load(&rm).unwrap();
        let b = rt.alloc_buffer(64 * 4).unwrap();
        let o = rt.alloc_buffer(4).unwrap();
        let args = vec![
            rt.buffer_address(b).unwrap().to_le_bytes().to_vec(),
            rt.buffer_address(o).unwrap().to_le_bytes().to_vec(),
            64u32.to_le_bytes().to_vec(),
        ];
        rt.launch(&Launch {
            program: p,
            kernel: "reduce".into(),
            range: NdRange::d1(64).local([64, 1, 1]),
            args,
        })
        .unwrap();
        let dt = t.elapsed();
        println!(
            "load + first launch of shaders/reduce.pisa, {label} pipeline cache: {:.2} ms",
            dt.as_secs_f64() * 1e3
        );
        dt
    };
    let cold = load("cold");
    let warm = load("warm");
    println!("warm/cold: {:.2}", warm.as_secs_f64() / cold.as_secs_f64());
    let _ = std::fs::remove_dir_all(&dir);
}
