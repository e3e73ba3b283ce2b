//! Instance, device selection and the [`Runtime`] that owns what is created
//! on the device.

use crate::error::VkContext;
use crate::features::FeaturesExt;
use crate::Features;
use crate::{DeviceInfo, DeviceKind, Result, RuntimeError};
use ash::{ext, vk};
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use std::ffi::{c_void, CStr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// A module translated for a device before a runtime is made on it
/// ([`translate_for`]), with the options it was translated with.
pub struct Translation {
    pub spirv: pisa_translator::spirv::Spirv,
    pub options: pisa_translator::spirv::Options,
}

/// Translates `module` as a runtime on the device `info` would, in checked
/// mode or not (but for what only a running device can tell, probed at
/// [`Runtime::load_pretranslated`]): what the program needs of the device,
/// to make the runtime with ([`RuntimeOptions::only_for`]), and the
/// translation that the runtime then loads.
pub fn translate_for(
    module: &pisa_translator::Module,
    info: &DeviceInfo,
    checked: bool,
) -> Result<Translation> {
    translate_for_numerics(module, info, checked, None)
}

/// [`translate_for`] with the numerics forced (`pisa run --numerics`;
/// `None`: the device's, [`translate_options`]).
pub fn translate_for_numerics(
    module: &pisa_translator::Module,
    info: &DeviceInfo,
    checked: bool,
    numerics: Option<pisa_translator::spirv::Numerics>,
) -> Result<Translation> {
    let mut options = with_numerics(translate_options(info), info, numerics)?;
    options.checked_memory = checked;
    let spirv = pisa_translator::spirv::translate_with(module, &options)?;
    soft_uses_no_f64(numerics, &spirv.words)?;
    Ok(Translation { spirv, options })
}

/// Under `--numerics soft` nothing is computed in f64 (docs/numerics.md,
/// "Choosing the numerics"), on a device that has f64 too: a translation
/// that still declares `Float64` (a `.df` form the soft-double library does
/// not compute: `frsqrt.fast.df`, `atom.add.df`) is refused (exit 3),
/// naming the instruction, instead of running it in the device's f64.
pub(crate) fn soft_uses_no_f64(
    numerics: Option<pisa_translator::spirv::Numerics>,
    words: &[u32],
) -> Result<()> {
    const FLOAT64: u32 = 10;
    if numerics != Some(pisa_translator::spirv::Numerics::Soft)
        || !crate::features::capabilities(words).contains(&FLOAT64)
    {
        return Ok(());
    }
    let what = crate::program::module_processed(words)
        .iter()
        .filter_map(|s| pisa_translator::spirv::kernel_info::parse_capability(s))
        .find(|(c, _)| *c == FLOAT64)
        .map_or("double-precision arithmetic (.df)".to_string(), |(_, w)| {
            w.to_string()
        });
    Err(crate::RuntimeError::Unsupported(format!(
        "{what} needs shaderFloat64, and `--numerics soft` computes nothing in f64 (the \
         soft-double library has no such form; docs/numerics.md)"
    )))
}

/// How modules are translated for a device: the driver workarounds it
/// needs (docs/abi.md), the exact `fmad.f` where it has 64-bit floats and
/// integers (the math library's f32 kernels and the exact f32 library where
/// it has not, docs/numerics.md), and 64-bit atomics on global memory under locks where
/// it lacks `shaderBufferInt64Atomics` (docs/abi.md, "Emulated atomics").
/// `PISA_SPIRV_OPTIONS=unroll,loop-cap,relaxed,opaque,opaque-push,fma-f64,
/// exact-division,no-int64-atomics,mathlib-f32,exact-f32,soft-f64,
/// no-narrow-ints,no-float16` (any subset) overrides the workarounds, to
/// track down driver bugs (README); `no-int64-atomics` emulates 64-bit
/// global atomics on any device, `mathlib-f32` links the math library's f32
/// kernels on any device, `exact-f32` computes the exact f32 operations
/// without f64 on any device, `soft-f64` the `.df` arithmetic in integers on
/// any device (docs/numerics.md), `no-narrow-ints` holds 8- and 16-bit
/// integers in 32-bit ones (`spirv::narrow`), `no-float16` rounds `.hf`
/// results without the 16-bit float type. Last, what the probe found of the
/// driver (`info.probed`, [`crate::probe::apply`]): `DenormPreserve`
/// requested, or a float width refused, where the driver's defaults differ
/// from PISA's.
pub fn translate_options(info: &DeviceInfo) -> pisa_translator::spirv::Options {
    let v = std::env::var("PISA_SPIRV_OPTIONS").ok();
    translate_options_with(info, v.as_deref())
}

/// `options` with the numerics forced (`None`: as they are): the f64
/// paths are refused (exit 3) on a device without `shaderFloat64` or
/// `shaderInt64` (docs/numerics.md, "Choosing the numerics").
pub fn with_numerics(
    options: pisa_translator::spirv::Options,
    info: &DeviceInfo,
    numerics: Option<pisa_translator::spirv::Numerics>,
) -> Result<pisa_translator::spirv::Options> {
    use pisa_translator::spirv::Numerics;
    match numerics {
        None => Ok(options),
        Some(Numerics::F64) if !(info.features.float64 && info.features.int64) => {
            Err(crate::RuntimeError::MissingFeature {
                feature: if info.features.float64 {
                    "shaderInt64"
                } else {
                    "shaderFloat64"
                },
                construct: "`--numerics f64` (the exact operations and the math library in f64)"
                    .into(),
            })
        }
        Some(n) => Ok(options.with_numerics(n)),
    }
}

/// [`translate_options`] with the value of `PISA_SPIRV_OPTIONS` given
/// (`None`: not set).
pub fn translate_options_with(
    info: &DeviceInfo,
    spirv_options: Option<&str>,
) -> pisa_translator::spirv::Options {
    let mut options = pisa_translator::spirv::Options::for_loop_cap(info.caps_loops)
        .with_signed_zeros(info.signed_zero_inf_nan_preserve)
        .with_f64(info.features.float64 && info.features.int64);
    options.int64_buffer_atomics = info.features.int64_atomics;
    let f = &info.features;
    options.narrow_integers = [f.int8, f.int16];
    options.narrow_storage = [f.storage8, f.storage16];
    options.float16 = f.float16;
    // (after the overrides below) what the probe found of the driver
    let probed = |mut o: pisa_translator::spirv::Options| {
        crate::probe::apply(&mut o, info);
        o
    };
    if let Some(v) = spirv_options {
        let on: Vec<&str> = v.split(',').map(str::trim).collect();
        options.unroll_loops = on.contains(&"unroll");
        options.detect_loop_cap = on.contains(&"loop-cap");
        options.relaxed_memory_orders = on.contains(&"relaxed");
        options.opaque_operands = on.contains(&"opaque");
        options.opaque_push_constants = on.contains(&"opaque-push");
        options.fma_f32_via_f64 &= on.contains(&"fma-f64");
        options.exact_division &= on.contains(&"exact-division");
        options.int64_buffer_atomics &= !on.contains(&"no-int64-atomics");
        options.mathlib_f32 |= on.contains(&"mathlib-f32");
        if on.contains(&"exact-f32") {
            options = options.with_exact_f32();
        }
        if on.contains(&"no-narrow-ints") {
            options.narrow_integers = [false; 2];
        }
        options.float16 &= !on.contains(&"no-float16");
        options.soft_f64 |= on.contains(&"soft-f64");
    }
    probed(options)
}

#[derive(Debug, Clone)]
pub struct RuntimeOptions {
    /// Device index or name substring; `None`: `PISA_DEVICE`, else the best.
    pub device: Option<String>,
    /// Enable `VK_LAYER_KHRONOS_validation` and collect its messages.
    pub validation: bool,
    /// How long a launch may run before it is reported as hung.
    pub timeout: Duration,
    /// Keep the pipeline cache in the user's cache directory.
    pub pipeline_cache: bool,
    /// Measure each launch with GPU timestamps ([`crate::LaunchTiming`]).
    pub timestamps: bool,
    /// Enable only the features these SPIR-V modules need (and fail here,
    /// naming the feature and the PISA construct, if the device lacks one);
    /// `None`: every PISA-relevant feature the device has.
    pub only_for: Option<Vec<Vec<u32>>>,
    /// With `only_for`: features to enable too where the device has them
    /// (e.g. 64-bit floats and integers for the exact `fmad.f`).
    pub optional: Features,
    /// Checked mode (`pisa run --check`): modules loaded from PISA check
    /// every memory access against the launch's live allocations and report
    /// the first bad one as an error (translator's `spirv::checked`).
    pub checked_memory: bool,
    /// Behave as the device this description describes (`pisa run
    /// --profile`): the selected device restricted to it
    /// ([`pisa_device::DeviceDescription::restrict`]); only the features
    /// both offer are enabled, and every limit is the smaller one.
    pub profile: Option<pisa_device::DeviceDescription>,
    /// The numerics forced for every module loaded from PISA (`pisa run
    /// --numerics`; [`with_numerics`]); `None`: the device's.
    pub numerics: Option<pisa_translator::spirv::Numerics>,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        RuntimeOptions {
            device: None,
            validation: std::env::var_os("PISA_VALIDATION").is_some_and(|v| v != "0"),
            timeout: Duration::from_secs(10),
            pipeline_cache: true,
            timestamps: false,
            only_for: None,
            optional: Features::default(),
            checked_memory: false,
            profile: None,
            numerics: None,
        }
    }
}

pub(crate) struct Instance {
    /// Keeps the Vulkan loader library loaded.
    pub _entry: ash::Entry,
    pub instance: ash::Instance,
    pub debug: Option<(ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    pub messages: Arc<Mutex<Vec<String>>>,
}

// SAFETY: (the contract of this `unsafe fn`) it is called only by the
// Vulkan loader or the validation layer, as the messenger's
// `pfnUserCallback`: `data` is null or points to callback data valid for the
// duration of the call, and `user` is the `pUserData` it was registered with
// (`Instance::new`). It does not unwind: a panic in an `extern "system"` fn
// aborts.
unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _ty: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // only warnings and errors count (the loader also sends INFO messages)
    if severity.intersects(
        vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
            | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
    ) {
        // SAFETY: `data` is null or valid for the duration of the callback
        // (the contract above); its `pMessage` is null or a NUL-terminated
        // string valid as long, and the message is copied before returning.
        let msg = unsafe { data.as_ref() }
            .and_then(|d| unsafe { d.message_as_c_str() })
            .map_or_else(
                || "(no message)".to_string(),
                |m| m.to_string_lossy().into_owned(),
            );
        eprintln!("vulkan validation: {msg}");
        // SAFETY: `user` is `Arc::as_ptr` of the instance's `messages`, which
        // outlives the messenger: `Instance::drop` destroys the messenger
        // before the `Arc` is dropped, and a poisoned runtime never drops its
        // instance. A `Mutex` may be shared between threads, which the
        // callback may be called from.
        if let Some(list) = unsafe { (user as *const Mutex<Vec<String>>).as_ref() } {
            if let Ok(mut l) = list.lock() {
                l.push(msg);
            }
        }
    }
    vk::FALSE
}

impl Instance {
    pub fn new(validation: bool) -> Result<Instance> {
        // SAFETY: loads the system's Vulkan loader library, which runs only
        // its own initializers; the `Entry` is kept in the `Instance` (and so
        // the library stays loaded) as long as any object made from it.
        let entry =
            unsafe { ash::Entry::load() }.map_err(|e| RuntimeError::NoLoader(e.to_string()))?;
        let app = vk::ApplicationInfo::default()
            .application_name(c"pisa")
            .api_version(vk::API_VERSION_1_2);
        let mut layers = Vec::new();
        let mut exts = Vec::new();
        if validation {
            // SAFETY: a global command of the loaded loader; no arguments.
            let available = unsafe { entry.enumerate_instance_layer_properties() }
                .vk("vkEnumerateInstanceLayerProperties")?;
            if !available
                .iter()
                .any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER))
            {
                return Err(RuntimeError::BadLaunch(
                    "validation requested but VK_LAYER_KHRONOS_validation is not installed (apt-get install vulkan-validationlayers)".into(),
                ));
            }
            layers.push(VALIDATION_LAYER.as_ptr());
            exts.push(ext::debug_utils::NAME.as_ptr());
        }
        // SAFETY: a global command of the loaded loader; no layer named.
        let available = unsafe { entry.enumerate_instance_extension_properties(None) }
            .vk("vkEnumerateInstanceExtensionProperties")?;
        let (more, flags) = crate::portability::instance_additions(
            available
                .iter()
                .filter_map(|e| e.extension_name_as_c_str().ok()),
        );
        exts.extend(more.iter().map(|n| n.as_ptr()));
        let info = vk::InstanceCreateInfo::default()
            .flags(flags)
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&exts);
        // SAFETY: `info` and what it points to (application info, the layer and
        // extension names, static C strings) outlive the call; the layer is
        // requested only if the loader lists it, and debug utils come with it;
        // portability enumeration (and its flag) only if the loader lists it.
        let instance = unsafe { entry.create_instance(&info, None) }.map_err(|e| match e {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => RuntimeError::NoDevice,
            e => RuntimeError::Vulkan {
                result: format!("{e:?}"),
                call: "vkCreateInstance",
            },
        })?;
        let messages: Arc<Mutex<Vec<String>>> = Arc::default();
        let debug = if validation {
            let du = ext::debug_utils::Instance::new(&entry, &instance);
            let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                        | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                        | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(on_message))
                .user_data(Arc::as_ptr(&messages) as *mut c_void);
            // SAFETY: VK_EXT_debug_utils was enabled on `instance` (with the
            // layer); `on_message` has the callback's signature and contract;
            // the user data outlives the messenger (see `on_message`).
            let m = unsafe { du.create_debug_utils_messenger(&info, None) }
                .vk("vkCreateDebugUtilsMessengerEXT")?;
            Some((du, m))
        } else {
            None
        };
        Ok(Instance {
            _entry: entry,
            instance,
            debug,
            messages,
        })
    }

    pub fn devices(&self) -> Result<Vec<(vk::PhysicalDevice, DeviceInfo)>> {
        // SAFETY: `self.instance` is live (destroyed only in `drop`).
        let pdevs = unsafe { self.instance.enumerate_physical_devices() }
            .vk("vkEnumeratePhysicalDevices")?;
        Ok(pdevs
            .into_iter()
            .enumerate()
            .map(|(index, p)| (p, describe(&self.instance, p, index)))
            .collect())
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: the messenger and the instance were created here and are
        // destroyed once, the messenger first. Every object made from the
        // instance is gone: a `Runtime` destroys its device before dropping
        // its instance, and never drops it when poisoned (the device lives
        // on); `list_devices` creates no device.
        unsafe {
            if let Some((du, m)) = self.debug.take() {
                du.destroy_debug_utils_messenger(m, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

fn describe(instance: &ash::Instance, p: vk::PhysicalDevice, index: usize) -> DeviceInfo {
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
    let mut float = vk::PhysicalDeviceFloatControlsProperties::default();
    let mut ids = vk::PhysicalDeviceIDProperties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut driver)
        .push_next(&mut sub)
        .push_next(&mut float)
        .push_next(&mut ids);
    // SAFETY: `p` was enumerated from this live instance, created for Vulkan
    // 1.2, so vkGetPhysicalDeviceProperties2 is core; the chain holds
    // distinct, valid output structures that outlive the call. A device of an
    // older version skips the structures it does not know, leaving defaults.
    unsafe { instance.get_physical_device_properties2(p, &mut props2) };
    let props = props2.properties;
    let (features, bda) = Features::query(instance, p);
    let v = props.api_version;
    DeviceInfo {
        index,
        name: props
            .device_name_as_c_str()
            .map_or_else(|_| "?".into(), |s| s.to_string_lossy().into_owned()),
        kind: match props.device_type {
            vk::PhysicalDeviceType::DISCRETE_GPU => DeviceKind::Discrete,
            vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceKind::Integrated,
            vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceKind::Virtual,
            vk::PhysicalDeviceType::CPU => DeviceKind::Cpu,
            _ => DeviceKind::Other,
        },
        driver: format!(
            "{} {}",
            driver
                .driver_name_as_c_str()
                .map_or_else(|_| "?".into(), |s| s.to_string_lossy().into_owned()),
            driver
                .driver_info_as_c_str()
                .map_or_else(|_| String::new(), |s| s.to_string_lossy().into_owned())
        )
        .trim()
        .to_string(),
        api_version: (
            vk::api_version_major(v),
            vk::api_version_minor(v),
            vk::api_version_patch(v),
        ),
        subgroup_size: sub.subgroup_size,
        max_workgroup_invocations: props.limits.max_compute_work_group_invocations,
        max_workgroup_count: props.limits.max_compute_work_group_count,
        max_shared_bytes: props.limits.max_compute_shared_memory_size,
        buffer_device_address: bda,
        features,
        caps_loops: driver.driver_id == vk::DriverId::MESA_LLVMPIPE,
        signed_zero_inf_nan_preserve: [
            float.shader_signed_zero_inf_nan_preserve_float16 != 0,
            float.shader_signed_zero_inf_nan_preserve_float32 != 0,
            float.shader_signed_zero_inf_nan_preserve_float64 != 0,
        ],
        denorm_preserve: [
            float.shader_denorm_preserve_float16 != 0,
            float.shader_denorm_preserve_float32 != 0,
            float.shader_denorm_preserve_float64 != 0,
        ],
        // what an earlier open probed, where the cache has it (probe.rs), so
        // that modules translated before a runtime exists (`translate_for`)
        // are translated as it will; a bad override is reported by the
        // runtime's open, not here
        probed: crate::probe::cache_path(&props, &ids)
            .and_then(|p| crate::probe::read_cache(&p))
            .and_then(|p| crate::probe::with_override(p).ok())
            .map(|(p, _)| p),
    }
}

/// `VkPhysicalDeviceIDProperties` of a device (its and its driver's UUIDs,
/// which name its probe cache).
fn device_ids(
    instance: &ash::Instance,
    p: vk::PhysicalDevice,
) -> vk::PhysicalDeviceIDProperties<'static> {
    let mut ids = vk::PhysicalDeviceIDProperties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut ids);
    // SAFETY: as in `describe`: `p` belongs to this live instance (Vulkan
    // 1.2, vkGetPhysicalDeviceProperties2 is core); the chain is one valid
    // output structure that outlives the call.
    unsafe { instance.get_physical_device_properties2(p, &mut props2) };
    ids
}

/// Enumerates the Vulkan devices (for `pisa devices`).
pub fn list_devices() -> Result<Vec<DeviceInfo>> {
    let inst = Instance::new(false)?;
    Ok(inst.devices()?.into_iter().map(|(_, d)| d).collect())
}

/// The device a runtime without a `device` option would take (`PISA_DEVICE`,
/// else the best kind), as a position in `devs` (for `pisa devices`).
pub fn default_device(devs: &[DeviceInfo]) -> Result<usize> {
    let sel = std::env::var("PISA_DEVICE").ok();
    pick_info(&devs.iter().collect::<Vec<_>>(), sel.as_deref())
}

fn pick(devs: &[(vk::PhysicalDevice, DeviceInfo)], sel: Option<&str>) -> Result<usize> {
    pick_info(&devs.iter().map(|(_, d)| d).collect::<Vec<_>>(), sel)
}

/// The device a runtime with `device: sel` would take, as a position in
/// `devs` (`None`: `PISA_DEVICE`, else the best kind).
pub fn select_device(devs: &[DeviceInfo], sel: Option<&str>) -> Result<usize> {
    let env = std::env::var("PISA_DEVICE").ok();
    pick_info(&devs.iter().collect::<Vec<_>>(), sel.or(env.as_deref()))
}

/// Picks by index or name substring; else discrete, integrated, virtual, CPU.
fn pick_info(devs: &[&DeviceInfo], sel: Option<&str>) -> Result<usize> {
    if devs.is_empty() {
        return Err(RuntimeError::NoDevice);
    }
    if let Some(sel) = sel.filter(|s| !s.is_empty()) {
        if let Ok(i) = sel.parse::<usize>() {
            return devs
                .iter()
                .position(|d| d.index == i)
                .ok_or_else(|| RuntimeError::DeviceNotFound(sel.into()));
        }
        let lower = sel.to_lowercase();
        return devs
            .iter()
            .position(|d| d.name.to_lowercase().contains(&lower))
            .ok_or_else(|| RuntimeError::DeviceNotFound(sel.into()));
    }
    let rank = |k: DeviceKind| match k {
        DeviceKind::Discrete => 0,
        DeviceKind::Integrated => 1,
        DeviceKind::Virtual => 2,
        DeviceKind::Cpu => 3,
        DeviceKind::Other => 4,
    };
    Ok((0..devs.len())
        .min_by_key(|&i| (rank(devs[i].kind), i))
        .unwrap_or(0))
}

pub struct Runtime {
    pub(crate) inst: std::mem::ManuallyDrop<Instance>,
    pub(crate) device: ash::Device,
    pub(crate) queue: vk::Queue,
    pub(crate) allocator: Option<Allocator>,
    pub(crate) cmd_pool: vk::CommandPool,
    pub(crate) pipeline_cache: vk::PipelineCache,
    pub(crate) cache_path: Option<std::path::PathBuf>,
    pub(crate) info: DeviceInfo,
    pub(crate) timestamp_period: f32,
    /// `maxComputeWorkGroupSize`: the largest local size per dimension.
    pub(crate) max_workgroup_size: [u32; 3],
    pub(crate) timestamps: bool,
    pub(crate) timeout: Duration,
    pub(crate) buffers: Vec<Option<crate::buffer::Buffer>>,
    pub(crate) programs: Vec<Option<crate::program::Program>>,
    /// After a timeout or device loss nothing may be destroyed safely.
    pub(crate) poisoned: bool,
    /// Per-submission objects ready for reuse.
    pub(crate) slots: Vec<crate::launch::Slot>,
    /// Those of submissions not yet waited for, by [`crate::Pending`] serial.
    pub(crate) in_flight: Vec<(u64, crate::launch::Slot)>,
    /// Bytes of each launch's printf buffer (docs/abi.md).
    pub(crate) printf_bytes: u32,
    /// Checked mode ([`RuntimeOptions::checked_memory`]).
    pub(crate) checked_memory: bool,
    /// How the probed values in `info.probed` were come by (`probe.rs`).
    pub(crate) probe_source: Option<crate::probe::ProbeSource>,
    /// The `PISA_PROBE_OVERRIDE` list applied over them.
    pub(crate) probe_override: Option<String>,
    /// The numerics forced ([`RuntimeOptions::numerics`]).
    pub(crate) numerics: Option<pisa_translator::spirv::Numerics>,
}

impl Runtime {
    pub fn new(opts: RuntimeOptions) -> Result<Runtime> {
        let inst = Instance::new(opts.validation)?;
        let devs = inst.devices()?;
        let sel = opts
            .device
            .clone()
            .or_else(|| std::env::var("PISA_DEVICE").ok());
        let i = pick(&devs, sel.as_deref())?;
        let (pdev, info) = devs[i].clone();
        // SAFETY: `pdev` was enumerated from this live instance.
        let props = unsafe { inst.instance.get_physical_device_properties(pdev) };
        let mut max_workgroup_size = props.limits.max_compute_work_group_size;
        let info = match &opts.profile {
            Some(p) => {
                let r = p.restrict(&info, max_workgroup_size);
                max_workgroup_size = r.max_workgroup_size;
                let push = p.limits.max_push_constants_size;
                if push < pisa_translator::abi::PUSH_BYTES {
                    return Err(RuntimeError::Unsupported(format!(
                        "every program needs {} bytes of push constants (docs/abi.md, \"Push constants\"); the profile's maxPushConstantsSize is {push} bytes (Vulkan requires 128)",
                        pisa_translator::abi::PUSH_BYTES
                    )));
                }
                r.info
            }
            None => info,
        };
        if !info.buffer_device_address {
            return Err(RuntimeError::MissingFeature {
                feature: "bufferDeviceAddress",
                construct: "`.global`/`.const` memory and pointer arguments".into(),
            });
        }
        // SAFETY: `pdev` was enumerated from this live instance.
        let qfs = unsafe {
            inst.instance
                .get_physical_device_queue_family_properties(pdev)
        };
        let queue_family = qfs
            .iter()
            .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or(RuntimeError::NoDevice)? as u32;
        let timestamps = opts.timestamps && qfs[queue_family as usize].timestamp_valid_bits > 0;
        let f = match &opts.only_for {
            Some(modules) => {
                let mut need = Features::default();
                for words in modules {
                    info.features.check(words)?;
                    need = need.union(Features::needed_by(words));
                }
                need.union(opts.optional.intersection(info.features))
            }
            // the PISA-relevant features the device has (docs/abi.md); a
            // module that needs a missing one is rejected when it is loaded
            None => info.features,
        };
        let mut v11 =
            vk::PhysicalDeviceVulkan11Features::default().storage_buffer16_bit_access(f.storage16);
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default()
            .buffer_device_address(true)
            .shader_int8(f.int8)
            .shader_float16(f.float16)
            .storage_buffer8_bit_access(f.storage8)
            .shader_buffer_int64_atomics(f.int64_atomics);
        let core = vk::PhysicalDeviceFeatures::default()
            .shader_int16(f.int16)
            .shader_int64(f.int64)
            .shader_float64(f.float64);
        let mut f2 = vk::PhysicalDeviceFeatures2::default().features(core);
        let prio = [1.0f32];
        let qinfo = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(queue_family)
            .queue_priorities(&prio)];
        // SAFETY: `pdev` was enumerated from this live instance.
        let dev_exts = unsafe { inst.instance.enumerate_device_extension_properties(pdev) }
            .vk("vkEnumerateDeviceExtensionProperties")?;
        let dev_exts: Vec<*const std::ffi::c_char> = crate::portability::device_extensions(
            dev_exts
                .iter()
                .filter_map(|e| e.extension_name_as_c_str().ok()),
        )
        .iter()
        .map(|n| n.as_ptr())
        .collect();
        let dinfo = vk::DeviceCreateInfo::default()
            .queue_create_infos(&qinfo)
            .enabled_extension_names(&dev_exts)
            .push_next(&mut f2)
            .push_next(&mut v11)
            .push_next(&mut v12);
        // SAFETY: `pdev` belongs to this live instance; `dinfo` and its chain
        // (queue infos, priorities, feature structures, distinct types) outlive
        // the call; one queue of a family that exists; every feature enabled
        // is one the device reports (`info.features`, or a subset checked by
        // `Features::check`), bufferDeviceAddress included (checked above),
        // the one extension (portability subset) only where the device lists it,
        // and the device's 1.2 feature structures are known to it, or it would
        // not have reported bufferDeviceAddress through them.
        let device =
            unsafe { inst.instance.create_device(pdev, &dinfo, None) }.vk("vkCreateDevice")?;
        // SAFETY: one queue (index 0) of `queue_family` was created with the
        // device.
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        // on an error from here on, what was created on the device is destroyed
        // before the device, and the device before the instance (dropped on
        // return)
        let allocator = match Allocator::new(&AllocatorCreateDesc {
            instance: inst.instance.clone(),
            device: device.clone(),
            physical_device: pdev,
            debug_settings: Default::default(),
            buffer_device_address: true,
            allocation_sizes: Default::default(),
        }) {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: the device was created above, has no objects (the
                // allocator allocated nothing it keeps), was given no work, and
                // is destroyed once, before its instance.
                unsafe { device.destroy_device(None) };
                return Err(crate::error::allocation_error(e));
            }
        };
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: a pool for the device's queue family, on the live device.
        let cmd_pool = match unsafe { device.create_command_pool(&pool_info, None) } {
            Ok(p) => p,
            Err(e) => {
                drop(allocator);
                // SAFETY: the device was created above, has no objects left
                // (the allocator freed its memory when dropped), was given no
                // work, and is destroyed once, before its instance.
                unsafe { device.destroy_device(None) };
                return Err(e).vk("vkCreateCommandPool");
            }
        };
        let cache_path = if opts.pipeline_cache {
            crate::cache::path(&props)
        } else {
            None
        };
        let pipeline_cache = match crate::cache::create(&device, cache_path.as_deref()) {
            Ok(c) => c,
            Err(e) => {
                drop(allocator);
                // SAFETY: the command pool was created on this device and
                // never used; then the device has no objects left (the
                // allocator freed its memory when dropped), was given no
                // work, and is destroyed once, before its instance.
                unsafe {
                    device.destroy_command_pool(cmd_pool, None);
                    device.destroy_device(None);
                }
                return Err(e);
            }
        };
        let mut info = info;
        info.features = f;
        // measured afresh, or read from the cache below
        info.probed = None;
        // (kept whether or not the pipeline cache is: it holds what the
        // driver does, not code it compiled)
        let probe_cache = crate::probe::cache_path(&props, &device_ids(&inst.instance, pdev));
        let mut rt = Runtime {
            inst: std::mem::ManuallyDrop::new(inst),
            device,
            queue,
            allocator: Some(allocator),
            cmd_pool,
            pipeline_cache,
            cache_path,
            info,
            timestamp_period: props.limits.timestamp_period,
            max_workgroup_size,
            timestamps,
            checked_memory: opts.checked_memory,
            numerics: opts.numerics,
            timeout: opts.timeout,
            buffers: Vec::new(),
            programs: Vec::new(),
            poisoned: false,
            probe_source: None,
            probe_override: None,
            slots: Vec::new(),
            printf_bytes: crate::printf::DEFAULT_PRINTF_BUFFER_BYTES,
            in_flight: Vec::new(),
        };
        // what the feature bits do not say of the driver (probe.rs); on an
        // error the runtime is dropped, destroying what it holds
        rt.probe_at_open(probe_cache)?;
        Ok(rt)
    }

    pub fn device_info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Warnings and errors the validation layer reported so far.
    pub fn validation_messages(&self) -> Vec<String> {
        self.inst
            .messages
            .lock()
            .map(|m| m.clone())
            .unwrap_or_default()
    }

    pub fn set_timeout(&mut self, t: Duration) {
        self.timeout = t;
    }

    /// The size of the printf buffer each launch of a kernel that prints
    /// gets (at least 12 bytes: the header and one record's address).
    pub fn set_printf_buffer_size(&mut self, bytes: u32) {
        self.printf_bytes = bytes.max(12);
    }

    pub(crate) fn usable(&self) -> Result<()> {
        if self.poisoned {
            Err(RuntimeError::Unusable)
        } else {
            Ok(())
        }
    }

    /// Saves the pipeline cache now (also done when the runtime is dropped).
    pub fn save_pipeline_cache(&self) {
        crate::cache::save(
            &self.device,
            self.pipeline_cache,
            self.cache_path.as_deref(),
        );
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if self.poisoned {
            // work may still run on the device: destroying it could hang or
            // crash, so everything is left to the end of the process
            std::mem::forget(self.allocator.take());
            return;
        }
        // SAFETY: `&mut self` gives the external synchronization of the
        // runtime's one queue that vkDeviceWaitIdle needs.
        if unsafe { self.device.device_wait_idle() }.is_err() {
            // lost: treated as poisoned (see above)
            std::mem::forget(self.allocator.take());
            return;
        }
        self.save_pipeline_cache();
        let in_flight = std::mem::take(&mut self.in_flight)
            .into_iter()
            .map(|(_, s)| s);
        for slot in std::mem::take(&mut self.slots).into_iter().chain(in_flight) {
            // SAFETY: the fence and the query pool were created on this device
            // and are destroyed once (the slots were taken out of the
            // runtime); the device is idle, so no submission uses them. The
            // command buffer goes with its pool below.
            unsafe {
                self.device.destroy_fence(slot.fence, None);
                if let Some((q, _)) = slot.query {
                    self.device.destroy_query_pool(q, None);
                }
            }
        }
        let programs = std::mem::take(&mut self.programs);
        for p in programs.into_iter().flatten() {
            p.destroy(self);
        }
        let buffers = std::mem::take(&mut self.buffers);
        for b in buffers.into_iter().flatten() {
            b.destroy(&self.device, self.allocator.as_mut());
        }
        drop(self.allocator.take());
        // SAFETY: the device is idle and every other object created on it was
        // destroyed above (programs, buffers, slots; the allocator freed its
        // memory; command buffers go with their pool), each once. The
        // instance is dropped last, after its device, and never used again.
        unsafe {
            self.device
                .destroy_pipeline_cache(self.pipeline_cache, None);
            self.device.destroy_command_pool(self.cmd_pool, None);
            self.device.destroy_device(None);
            std::mem::ManuallyDrop::drop(&mut self.inst);
        }
    }
}
