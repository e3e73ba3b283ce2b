//! What a device is and offers, as a program load and a launch see it.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceKind {
    Discrete,
    Integrated,
    Virtual,
    Cpu,
    Other,
}

#[derive(Debug, Clone)]
pub struct DeviceInfo {
    pub index: usize,
    pub name: String,
    pub kind: DeviceKind,
    pub driver: String,
    pub api_version: (u32, u32, u32),
    pub subgroup_size: u32,
    pub max_workgroup_invocations: u32,
    /// `maxComputeWorkGroupCount`: the most work-groups one dispatch may
    /// have per dimension (launches with more are split).
    pub max_workgroup_count: [u32; 3],
    pub max_shared_bytes: u32,
    pub buffer_device_address: bool,
    pub features: Features,
    /// The driver ends long-running loops by itself (Mesa's llvmpipe: after
    /// 65,535 iterations per invocation in all); modules for it are
    /// translated with small loops unrolled (docs/control-flow.md).
    pub caps_loops: bool,
    /// `shaderSignedZeroInfNanPreserveFloat16/32/64`: the device can be
    /// told to keep the sign of zeros, infinities and NaNs (no `x + 0 → x`).
    pub signed_zero_inf_nan_preserve: [bool; 3],
    /// `shaderDenormPreserveFloat16/32/64`: the device can be told to keep
    /// denormals (the `DenormPreserve` execution mode).
    pub denorm_preserve: [bool; 3],
    /// The driver's behaviour the feature bits do not state, probed when
    /// the Vulkan runtime opened the device (`None`: not probed: a device
    /// listed but not opened, a profile, the cpu device).
    pub probed: Option<crate::Probed>,
}

/// The PISA-relevant optional features, as the device reports them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Features {
    pub int8: bool,
    pub int16: bool,
    pub int64: bool,
    pub float16: bool,
    pub float64: bool,
    pub storage8: bool,
    pub storage16: bool,
    pub int64_atomics: bool,
}

impl Features {
    /// Every feature (a device that lacks none, such as the reference
    /// interpreter).
    pub const ALL: Features = Features {
        int8: true,
        int16: true,
        int64: true,
        float16: true,
        float64: true,
        storage8: true,
        storage16: true,
        int64_atomics: true,
    };

    /// The features both sets have.
    pub fn intersection(self, o: Features) -> Features {
        Features {
            int8: self.int8 && o.int8,
            int16: self.int16 && o.int16,
            int64: self.int64 && o.int64,
            float16: self.float16 && o.float16,
            float64: self.float64 && o.float64,
            storage8: self.storage8 && o.storage8,
            storage16: self.storage16 && o.storage16,
            int64_atomics: self.int64_atomics && o.int64_atomics,
        }
    }

    pub fn union(self, o: Features) -> Features {
        Features {
            int8: self.int8 || o.int8,
            int16: self.int16 || o.int16,
            int64: self.int64 || o.int64,
            float16: self.float16 || o.float16,
            float64: self.float64 || o.float64,
            storage8: self.storage8 || o.storage8,
            storage16: self.storage16 || o.storage16,
            int64_atomics: self.int64_atomics || o.int64_atomics,
        }
    }
}
