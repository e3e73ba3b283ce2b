//! Device features PISA modules need, and the SPIR-V capability each serves:
//! the Vulkan side of the contract's [`Features`].

use crate::Features;
use ash::vk;

/// What the Vulkan runtime reads of [`Features`]: the device's, and those a
/// SPIR-V module needs.
pub trait FeaturesExt: Sized {
    /// The device's features, and whether it has `bufferDeviceAddress`.
    fn query(instance: &ash::Instance, pdev: vk::PhysicalDevice) -> (Self, bool);
    /// The features a module's capabilities need.
    fn needed_by(spirv: &[u32]) -> Self;
    /// Checks a module's capabilities against the enabled features.
    fn check(&self, spirv: &[u32]) -> crate::Result<()>;
}

impl FeaturesExt for Features {
    fn query(instance: &ash::Instance, pdev: vk::PhysicalDevice) -> (Features, bool) {
        let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut v11)
            .push_next(&mut v12);
        // SAFETY: `pdev` was enumerated from this live instance, created for
        // Vulkan 1.2, so vkGetPhysicalDeviceFeatures2 is core; the chain holds
        // distinct, valid output structures that outlive the call (a device
        // of an older version skips those it does not know, leaving zeros).
        unsafe { instance.get_physical_device_features2(pdev, &mut f2) };
        let f = f2.features;
        (
            Features {
                int8: v12.shader_int8 != 0,
                int16: f.shader_int16 != 0,
                int64: f.shader_int64 != 0,
                float16: v12.shader_float16 != 0,
                float64: f.shader_float64 != 0,
                storage8: v12.storage_buffer8_bit_access != 0,
                storage16: v11.storage_buffer16_bit_access != 0,
                int64_atomics: v12.shader_buffer_int64_atomics != 0,
            },
            v12.buffer_device_address != 0,
        )
    }

    fn needed_by(spirv: &[u32]) -> Features {
        let mut f = Features::default();
        for cap in capabilities(spirv) {
            match cap {
                39 => f.int8 = true,
                22 => f.int16 = true,
                11 => f.int64 = true,
                9 => f.float16 = true,
                10 => f.float64 = true,
                4448 => f.storage8 = true,
                4433 => f.storage16 = true,
                12 => f.int64_atomics = true,
                _ => {}
            }
        }
        f
    }

    fn check(&self, spirv: &[u32]) -> crate::Result<()> {
        for cap in capabilities(spirv) {
            let (have, feature, construct) = match cap {
                39 => (
                    self.int8,
                    "shaderInt8",
                    "an 8-bit register or operation (.8b)",
                ),
                22 => (
                    self.int16,
                    "shaderInt16",
                    "a 16-bit register or operation (.16b)",
                ),
                11 => (
                    self.int64,
                    "shaderInt64",
                    "a 64-bit register or operation (.64b, addresses)",
                ),
                9 => (
                    self.float16,
                    "shaderFloat16",
                    "half-precision arithmetic (.hf)",
                ),
                10 => (
                    self.float64,
                    "shaderFloat64",
                    "double-precision arithmetic (.df)",
                ),
                4448 => (
                    self.storage8,
                    "storageBuffer8BitAccess",
                    "an 8-bit load or store in global memory",
                ),
                4433 => (
                    self.storage16,
                    "storageBuffer16BitAccess",
                    "a 16-bit load or store in global memory",
                ),
                12 => (
                    self.int64_atomics,
                    "shaderBufferInt64Atomics",
                    "a 64-bit atomic on global memory",
                ),
                _ => continue,
            };
            if !have {
                // the instruction that made the translator need it
                let first = crate::program::module_processed(spirv)
                    .iter()
                    .filter_map(|s| pisa_translator::spirv::kernel_info::parse_capability(s))
                    .find(|(c, _)| *c == cap)
                    .map(|(_, what)| what.to_string());
                let construct = match first {
                    Some(what) => format!("{what} ({construct})"),
                    None => construct.to_string(),
                };
                return Err(crate::RuntimeError::MissingFeature { feature, construct });
            }
        }
        Ok(())
    }
}

/// The `OpCapability` operands of a SPIR-V module.
pub fn capabilities(words: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xFFFF);
        if len == 0 {
            break;
        }
        if op == 17 && i + 1 < words.len() {
            out.push(words[i + 1]);
        }
        // capabilities come first; stop at the memory model
        if op == 14 {
            break;
        }
        i += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module_with(caps: &[u32]) -> Vec<u32> {
        let mut w = vec![0x0723_0203, 0x0001_0500, 0, 100, 0];
        for &c in caps {
            w.extend([(2 << 16) | 17, c]);
        }
        w.extend([(3 << 16) | 14, 5348, 1]);
        w
    }

    #[test]
    fn a_missing_feature_names_the_feature_and_the_construct() {
        let m = module_with(&[1, 11, 10]);
        let f = Features {
            int64: true,
            ..Default::default()
        };
        let e = f.check(&m).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "the device lacks `shaderFloat64`, which double-precision arithmetic (.df) needs; {}",
                pisa_device::apply::who_has("shaderFloat64").unwrap()
            )
        );
        let all = Features::needed_by(&m);
        assert!(all.int64 && all.float64 && !all.int8);
        assert!(all.check(&m).is_ok());
    }

    /// Optional features are enabled only where the device has them
    /// (`Runtime::new` with `only_for`): the intersection keeps exactly the
    /// features both sets have, the union those of either (mutation
    /// sampling: `int64_atomics` with `||` in the intersection survived,
    /// since lavapipe has every feature).
    #[test]
    fn intersection_and_union_go_feature_by_feature() {
        let all = Features::ALL;
        let none = Features::default();
        assert_eq!(format!("{:?}", all.intersection(none)), format!("{none:?}"));
        assert_eq!(format!("{:?}", none.intersection(all)), format!("{none:?}"));
        assert_eq!(format!("{:?}", all.intersection(all)), format!("{all:?}"));
        assert_eq!(format!("{:?}", none.union(all)), format!("{all:?}"));
        assert_eq!(format!("{:?}", all.union(none)), format!("{all:?}"));
        assert_eq!(format!("{:?}", none.union(none)), format!("{none:?}"));
    }

    #[test]
    fn a_missing_feature_names_the_instruction_that_needs_it() {
        // a module that computes fsin.f in f64 (the math library, ir/mathlib)
        let src = ".version 0.1;\n.target 100;\n.kernel @k(.param[8] %o)\n{\n\t.reg .64b %p;\n\t.reg .32b %a;\n\tld.param.64b %p, [%o];\n\tld.global.32b %a, [%p];\n\tfsin.f %a, %a;\n\tst.global.32b [%p], %a;\n\treturn;\n}\n";
        let m = pisa_translator::assemble("k.pisa", src).unwrap();
        let spv = pisa_translator::spirv::translate(&m).unwrap();
        let f = Features {
            int64: true,
            ..Default::default()
        };
        let e = f.check(&spv.words).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "the device lacks `shaderFloat64`, which `fsin.f` at k.pisa:9:2 (double-precision arithmetic (.df)) needs; {}",
                pisa_device::apply::who_has("shaderFloat64").unwrap()
            )
        );
    }
}
