//! Reading a Vulkan Profiles JSON file (schema `profiles-0.8`) into a [`DeviceDescription`].
//!
//! Both kinds of file have the same layout: `profiles.<NAME>` names a profile, its API version
//! and the capability blocks it is made of (`capabilities: [names]`), and `capabilities.<block>`
//! holds `features`, `properties` and `extensions`. A device report (profile name
//! `VP_GPUINFO_…` or `VP_VULKANINFO_…`) lists the device's own values, usually in one block; a
//! requirement profile lists lower bounds, often split over several blocks. The two are read
//! differently (docs/devices.md):
//!
//! - a feature or float-control flag that several structures carry (a core structure and its
//!   extension twin) is `true` in a device report only when every one of them says `true`
//!   (MoltenVK reports disagree), and in a requirement profile when any block requires it;
//! - a limit is the device report's value, or the largest value any block of a requirement
//!   profile requires (the smallest for `minSubgroupSize`, an upper bound), and never below the
//!   specification's required value;
//! - values that no device can have (sub-group sizes out of order, a zero limit, structures
//!   that disagree on a number) are an error in a device report.

use std::path::Path;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::{
    ApiVersion, DescriptionKind, DeviceDescription, Extensions, Features, FloatControls,
    FloatControlsIndependence, Identity, Limits, ProfileError, RequiredLimits, SubgroupOperations,
    Subgroups,
};

/// The largest sub-group size the specification allows (`maxSubgroupSize` is at most 128).
pub const MAX_SUBGROUP_SIZE: u32 = 128;

const VK10_FEATURES: &[&str] = &["VkPhysicalDeviceFeatures"];
const FLOAT16_INT8: &[&str] = &[
    "VkPhysicalDeviceVulkan12Features",
    "VkPhysicalDeviceShaderFloat16Int8Features",
    "VkPhysicalDeviceShaderFloat16Int8FeaturesKHR",
    "VkPhysicalDeviceFloat16Int8FeaturesKHR",
];
const STORAGE16: &[&str] = &[
    "VkPhysicalDeviceVulkan11Features",
    "VkPhysicalDevice16BitStorageFeatures",
    "VkPhysicalDevice16BitStorageFeaturesKHR",
];
const STORAGE8: &[&str] = &[
    "VkPhysicalDeviceVulkan12Features",
    "VkPhysicalDevice8BitStorageFeatures",
    "VkPhysicalDevice8BitStorageFeaturesKHR",
];
const BDA: &[&str] = &[
    "VkPhysicalDeviceVulkan12Features",
    "VkPhysicalDeviceBufferDeviceAddressFeatures",
    "VkPhysicalDeviceBufferDeviceAddressFeaturesKHR",
];
const ATOMIC_INT64: &[&str] = &[
    "VkPhysicalDeviceVulkan12Features",
    "VkPhysicalDeviceShaderAtomicInt64Features",
    "VkPhysicalDeviceShaderAtomicInt64FeaturesKHR",
];
const ATOMIC_FLOAT: &[&str] = &["VkPhysicalDeviceShaderAtomicFloatFeaturesEXT"];
const ATOMIC_FLOAT2: &[&str] = &["VkPhysicalDeviceShaderAtomicFloat2FeaturesEXT"];
const MEMORY_MODEL: &[&str] = &[
    "VkPhysicalDeviceVulkan12Features",
    "VkPhysicalDeviceVulkanMemoryModelFeatures",
    "VkPhysicalDeviceVulkanMemoryModelFeaturesKHR",
];
const SIZE_CONTROL_FEATURES: &[&str] = &[
    "VkPhysicalDeviceVulkan13Features",
    "VkPhysicalDeviceSubgroupSizeControlFeatures",
    "VkPhysicalDeviceSubgroupSizeControlFeaturesEXT",
];
const EXTENDED_TYPES: &[&str] = &[
    "VkPhysicalDeviceVulkan12Features",
    "VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures",
    "VkPhysicalDeviceShaderSubgroupExtendedTypesFeaturesKHR",
];
const MAXIMAL_RECONVERGENCE: &[&str] = &["VkPhysicalDeviceShaderMaximalReconvergenceFeaturesKHR"];
const UNIFORM_CONTROL_FLOW: &[&str] =
    &["VkPhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR"];
const FLOAT_CONTROLS2: &[&str] = &[
    "VkPhysicalDeviceVulkan14Features",
    "VkPhysicalDeviceShaderFloatControls2Features",
    "VkPhysicalDeviceShaderFloatControls2FeaturesKHR",
];

const PROPERTIES: &str = "VkPhysicalDeviceProperties";
const SUBGROUP_PROPERTIES: &str = "VkPhysicalDeviceSubgroupProperties";
const VULKAN11_PROPERTIES: &str = "VkPhysicalDeviceVulkan11Properties";
const SIZE_CONTROL_PROPERTIES: &[&str] = &[
    "VkPhysicalDeviceVulkan13Properties",
    "VkPhysicalDeviceSubgroupSizeControlProperties",
    "VkPhysicalDeviceSubgroupSizeControlPropertiesEXT",
];
const FLOAT_CONTROLS: &[&str] = &[
    "VkPhysicalDeviceVulkan12Properties",
    "VkPhysicalDeviceFloatControlsProperties",
    "VkPhysicalDeviceFloatControlsPropertiesKHR",
];
const DRIVER_PROPERTIES: &[&str] = &[
    "VkPhysicalDeviceVulkan12Properties",
    "VkPhysicalDeviceDriverProperties",
    "VkPhysicalDeviceDriverPropertiesKHR",
];

/// Structure and member path of one place a value may be.
type Source = (&'static str, Vec<&'static str>);

fn sources(structs: &[&'static str], member: &'static str) -> Vec<Source> {
    structs.iter().map(|s| (*s, vec![member])).collect()
}

fn limit(member: &'static str) -> Vec<Source> {
    vec![(PROPERTIES, vec!["limits", member])]
}

/// How a requirement profile's blocks combine for a number.
#[derive(Clone, Copy, PartialEq)]
enum Bound {
    /// The device's value is at least the profile's (`max` limits): the largest requirement.
    AtLeast,
    /// The device's value is at most the profile's (`minSubgroupSize`): the smallest.
    AtMost,
}

impl DeviceDescription {
    /// Reads a Vulkan Profiles JSON text: a device report, or a requirement profile (its
    /// first profile in the file). `file_name` names the text in error messages.
    pub fn from_profile_json(text: &str, file_name: &str) -> Result<Self, ProfileError> {
        Self::from_profile_json_named(text, file_name, None)
    }

    /// Reads a Vulkan Profiles JSON text, taking the profile `profile` (the first in the file
    /// when `None`).
    pub fn from_profile_json_named(
        text: &str,
        file_name: &str,
        profile: Option<&str>,
    ) -> Result<Self, ProfileError> {
        read(text, file_name, profile)
    }

    /// Reads a Vulkan Profiles JSON file (its first profile).
    pub fn from_profile_file(path: impl AsRef<Path>) -> Result<Self, ProfileError> {
        Self::from_profile_file_named(path, None)
    }

    /// Reads a Vulkan Profiles JSON file, taking the profile `profile` (the first in the file
    /// when `None`).
    pub fn from_profile_file_named(
        path: impl AsRef<Path>,
        profile: Option<&str>,
    ) -> Result<Self, ProfileError> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Io {
            file: file.clone(),
            source,
        })?;
        read(&text, &file, profile)
    }
}

/// How a value is described in a message: a string or number as JSON writes it, other values
/// by their kind.
fn found(v: &Value) -> String {
    match v {
        Value::Object(_) => "an object".to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Null => "null".to_string(),
        _ => v.to_string(),
    }
}

/// The names of a JSON object's members in the order of the text (serde_json's `Map` sorts
/// them).
struct KeysInOrder(Vec<String>);

impl<'de> Deserialize<'de> for KeysInOrder {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeysInOrder;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeysInOrder, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(k);
                }
                Ok(KeysInOrder(keys))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Deserialize)]
struct ProfileOrder {
    profiles: KeysInOrder,
}

struct Reader<'a> {
    file: &'a str,
    kind: DescriptionKind,
    blocks: Vec<(&'a str, &'a Map<String, Value>)>,
}

impl<'a> Reader<'a> {
    fn schema(&self, path: impl Into<String>, message: impl Into<String>) -> ProfileError {
        ProfileError::Schema {
            file: self.file.to_string(),
            path: path.into(),
            message: message.into(),
        }
    }

    fn contradiction(&self, path: impl Into<String>, message: impl Into<String>) -> ProfileError {
        ProfileError::Contradiction {
            file: self.file.to_string(),
            path: path.into(),
            message: message.into(),
        }
    }

    fn report(&self) -> bool {
        self.kind == DescriptionKind::DeviceReport
    }

    /// Every value at one of `srcs` in the `section` (`features`, `properties`) of every block,
    /// with its JSON path.
    fn values(
        &self,
        section: &str,
        srcs: &[Source],
    ) -> Result<Vec<(String, &'a Value)>, ProfileError> {
        let mut out = Vec::new();
        for (bname, block) in &self.blocks {
            let Some(sec) = block.get(section).and_then(Value::as_object) else {
                continue;
            };
            for (st, member) in srcs {
                let Some(mut cur) = sec.get(*st) else {
                    continue;
                };
                let mut path = format!("capabilities.{bname}.{section}.{st}");
                let mut present = true;
                for m in member {
                    let obj = cur.as_object().ok_or_else(|| {
                        self.schema(&path, format!("expected an object, found {}", found(cur)))
                    })?;
                    match obj.get(*m) {
                        Some(v) => {
                            path.push('.');
                            path.push_str(m);
                            cur = v;
                        }
                        None => {
                            present = false;
                            break;
                        }
                    }
                }
                if present {
                    out.push((path, cur));
                }
            }
        }
        Ok(out)
    }

    /// A flag: in a device report `true` when every place says `true`, in a requirement
    /// profile when any does; `false` when none has it.
    fn flag(
        &self,
        section: &str,
        structs: &[&'static str],
        member: &'static str,
    ) -> Result<bool, ProfileError> {
        let mut flags = Vec::new();
        for (p, v) in self.values(section, &sources(structs, member))? {
            flags.push(v.as_bool().ok_or_else(|| {
                self.schema(p, format!("expected a boolean, found {}", found(v)))
            })?);
        }
        Ok(if self.report() {
            !flags.is_empty() && flags.iter().all(|&b| b)
        } else {
            flags.iter().any(|&b| b)
        })
    }

    fn as_u32(&self, path: &str, v: &Value) -> Result<u32, ProfileError> {
        v.as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| {
                self.schema(
                    path,
                    format!("expected an unsigned 32-bit integer, found {}", found(v)),
                )
            })
    }

    /// A number with the path it was read from: a device report's (every place must agree),
    /// or the tightest requirement of a profile's blocks.
    fn number(&self, srcs: &[Source], bound: Bound) -> Result<Option<(u32, String)>, ProfileError> {
        let mut best: Option<(u32, String)> = None;
        for (p, v) in self.values("properties", srcs)? {
            let n = self.as_u32(&p, v)?;
            best = Some(match best {
                None => (n, p),
                Some((b, bp)) if self.report() => {
                    if b != n {
                        return Err(
                            self.contradiction(&p, format!("{n} disagrees with {b} at {bp}"))
                        );
                    }
                    (b, bp)
                }
                Some((b, bp)) => {
                    let take = match bound {
                        Bound::AtLeast => n > b,
                        Bound::AtMost => n < b,
                    };
                    if take {
                        (n, p)
                    } else {
                        (b, bp)
                    }
                }
            });
        }
        Ok(best)
    }

    /// A limit: the file's value (positive in a device report), never below the required
    /// value in a requirement profile; the required value when the file has none.
    fn limit(&self, member: &'static str, required: u32) -> Result<u32, ProfileError> {
        match self.number(&limit(member), Bound::AtLeast)? {
            Some((0, p)) if self.report() => {
                Err(self.contradiction(p, format!("{member} must be positive, found 0")))
            }
            Some((v, _)) if self.report() => Ok(v),
            Some((v, _)) => Ok(v.max(required)),
            None => Ok(required),
        }
    }

    /// A limit of three numbers, each read as [`Self::limit`] reads one.
    fn limit3(&self, member: &'static str, required: [u32; 3]) -> Result<[u32; 3], ProfileError> {
        let mut out = required;
        let mut first: Option<([u32; 3], String)> = None;
        for (p, v) in self.values("properties", &limit(member))? {
            let arr = v.as_array().filter(|a| a.len() == 3).ok_or_else(|| {
                self.schema(
                    &p,
                    format!("expected an array of 3 integers, found {}", found(v)),
                )
            })?;
            let mut n = [0u32; 3];
            for (i, e) in arr.iter().enumerate() {
                n[i] = self.as_u32(&format!("{p}[{i}]"), e)?;
            }
            if self.report() {
                if let Some((b, bp)) = &first {
                    if *b != n {
                        return Err(
                            self.contradiction(&p, format!("{n:?} disagrees with {b:?} at {bp}"))
                        );
                    }
                }
                if let Some(i) = n.iter().position(|&x| x == 0) {
                    return Err(self.contradiction(
                        format!("{p}[{i}]"),
                        format!("{member} must be positive, found 0"),
                    ));
                }
                out = n;
                first = Some((n, p));
            } else {
                for i in 0..3 {
                    out[i] = out[i].max(n[i]);
                }
            }
        }
        Ok(out)
    }

    fn strings(&self, p: &str, v: &'a Value) -> Result<Vec<&'a str>, ProfileError> {
        let bad = || {
            self.schema(
                p,
                format!("expected an array of strings, found {}", found(v)),
            )
        };
        let arr = v.as_array().ok_or_else(bad)?;
        arr.iter()
            .map(|e| e.as_str().ok_or_else(bad))
            .collect::<Result<Vec<_>, _>>()
    }

    /// Whether lists of `VkShaderStageFlagBits` include the compute stage: in a device report
    /// every list, in a requirement profile any; `None` when the file has no list.
    fn stages_have_compute(&self, srcs: &[Source]) -> Result<Option<bool>, ProfileError> {
        let mut res: Option<bool> = None;
        for (p, v) in self.values("properties", srcs)? {
            let list = self.strings(&p, v)?;
            let has = list
                .iter()
                .any(|s| *s == "VK_SHADER_STAGE_COMPUTE_BIT" || *s == "VK_SHADER_STAGE_ALL");
            res = Some(match res {
                None => has,
                Some(r) if self.report() => r && has,
                Some(r) => r || has,
            });
        }
        Ok(res)
    }

    /// Lists of `VkSubgroupFeatureFlagBits`: intersected in a device report, united in a
    /// requirement profile; `None` when the file has no list. A flag this reader does not know
    /// is left out (not offered); a string that is no such flag is an error.
    fn operations(&self, srcs: &[Source]) -> Result<Option<SubgroupOperations>, ProfileError> {
        let mut res: Option<SubgroupOperations> = None;
        for (p, v) in self.values("properties", srcs)? {
            let mut ops = SubgroupOperations::empty();
            for (i, s) in self.strings(&p, v)?.into_iter().enumerate() {
                let Some(rest) = s.strip_prefix("VK_SUBGROUP_FEATURE_") else {
                    return Err(self.schema(
                        format!("{p}[{i}]"),
                        format!("expected a VkSubgroupFeatureFlagBits name, found \"{s}\""),
                    ));
                };
                let name = ["_BIT_KHR", "_BIT_NV", "_BIT_EXT", "_BIT"]
                    .iter()
                    .find_map(|suf| rest.strip_suffix(suf))
                    .unwrap_or(rest);
                if let Some((_, f)) = SubgroupOperations::NAMES.iter().find(|(n, _)| *n == name) {
                    ops = ops.union(*f);
                }
            }
            res = Some(match res {
                None => ops,
                Some(r) if self.report() => r.intersection(ops),
                Some(r) => r.union(ops),
            });
        }
        Ok(res)
    }

    /// A `VkShaderFloatControlsIndependence`: the least of a device report's places, the most
    /// of a profile's blocks; `None` (the enumerant) when the file has none.
    fn independence(
        &self,
        member: &'static str,
    ) -> Result<FloatControlsIndependence, ProfileError> {
        let mut res: Option<FloatControlsIndependence> = None;
        for (p, v) in self.values("properties", &sources(FLOAT_CONTROLS, member))? {
            let s = v.as_str().unwrap_or("");
            let s = s.strip_suffix("_KHR").unwrap_or(s);
            let x = match s {
                "VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE" => FloatControlsIndependence::None,
                "VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY" => {
                    FloatControlsIndependence::ThirtyTwoBitOnly
                }
                "VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL" => FloatControlsIndependence::All,
                _ => {
                    return Err(self.schema(
                        p,
                        format!(
                            "expected a VkShaderFloatControlsIndependence name, found {}",
                            found(v)
                        ),
                    ))
                }
            };
            res = Some(match res {
                None => x,
                Some(r) if self.report() => r.min(x),
                Some(r) => r.max(x),
            });
        }
        Ok(res.unwrap_or(FloatControlsIndependence::None))
    }

    /// The first string at one of `srcs`; `null` counts as absent (KosmicKrisp reports a
    /// `null` driverID in VkPhysicalDeviceVulkan12Properties).
    fn first_string(&self, srcs: &[Source]) -> Result<Option<String>, ProfileError> {
        let found_values = self.values("properties", srcs)?;
        match found_values.into_iter().find(|(_, v)| !v.is_null()) {
            None => Ok(None),
            Some((p, v)) => v
                .as_str()
                .map(|s| Some(s.to_string()))
                .ok_or_else(|| self.schema(p, format!("expected a string, found {}", found(v)))),
        }
    }

    /// The first number at one of `srcs`.
    fn first_u32(&self, srcs: &[Source]) -> Result<Option<(u32, String)>, ProfileError> {
        match self.values("properties", srcs)?.into_iter().next() {
            None => Ok(None),
            Some((p, v)) => Ok(Some((self.as_u32(&p, v)?, p))),
        }
    }

    /// Checks the layout of one capability block: `features` (structures of booleans),
    /// `properties` (structures) and `extensions` (names to versions) are objects.
    fn check_block(&self, name: &str, block: &Value) -> Result<(), ProfileError> {
        let path = format!("capabilities.{name}");
        let obj = block.as_object().ok_or_else(|| {
            self.schema(&path, format!("expected an object, found {}", found(block)))
        })?;
        if let Some(f) = obj.get("features") {
            let fp = format!("{path}.features");
            let f = f.as_object().ok_or_else(|| {
                self.schema(&fp, format!("expected an object, found {}", found(f)))
            })?;
            for (st, sv) in f {
                let sp = format!("{fp}.{st}");
                let sv = sv.as_object().ok_or_else(|| {
                    self.schema(&sp, format!("expected an object, found {}", found(sv)))
                })?;
                for (m, v) in sv {
                    if !v.is_boolean() {
                        return Err(self.schema(
                            format!("{sp}.{m}"),
                            format!("expected a boolean, found {}", found(v)),
                        ));
                    }
                }
            }
        }
        if let Some(p) = obj.get("properties") {
            let pp = format!("{path}.properties");
            let p = p.as_object().ok_or_else(|| {
                self.schema(&pp, format!("expected an object, found {}", found(p)))
            })?;
            for (st, sv) in p {
                if !sv.is_object() {
                    return Err(self.schema(
                        format!("{pp}.{st}"),
                        format!("expected an object, found {}", found(sv)),
                    ));
                }
            }
        }
        if let Some(e) = obj.get("extensions") {
            let ep = format!("{path}.extensions");
            let e = e.as_object().ok_or_else(|| {
                self.schema(&ep, format!("expected an object, found {}", found(e)))
            })?;
            for (n, v) in e {
                if !v.is_u64() {
                    return Err(self.schema(
                        format!("{ep}.{n}"),
                        format!("expected an extension's version number, found {}", found(v)),
                    ));
                }
            }
        }
        Ok(())
    }

    fn has_extension(&self, name: &str) -> bool {
        self.blocks.iter().any(|(_, b)| {
            b.get("extensions")
                .and_then(Value::as_object)
                .is_some_and(|e| e.contains_key(name))
        })
    }
}

fn parse_api_version(s: &str) -> Option<ApiVersion> {
    let mut it = s.split('.');
    let v = ApiVersion::new(
        it.next()?.parse().ok()?,
        it.next()?.parse().ok()?,
        it.next()?.parse().ok()?,
    );
    it.next().is_none().then_some(v)
}

fn read(text: &str, file: &str, profile: Option<&str>) -> Result<DeviceDescription, ProfileError> {
    let root: Value = serde_json::from_str(text).map_err(|e| {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        ProfileError::NotJson {
            file: file.to_string(),
            line: e.line(),
            column: e.column(),
            message: full.strip_suffix(&suffix).unwrap_or(&full).to_string(),
        }
    })?;
    let mut r = Reader {
        file,
        kind: DescriptionKind::RequirementProfile,
        blocks: Vec::new(),
    };
    let obj = root.as_object().ok_or_else(|| {
        r.schema(
            "(top level)",
            format!("expected an object, found {}", found(&root)),
        )
    })?;
    let profiles = obj
        .get("profiles")
        .ok_or_else(|| r.schema("profiles", "missing (the file names its profiles here)"))?;
    let profiles = profiles.as_object().ok_or_else(|| {
        r.schema(
            "profiles",
            format!("expected an object, found {}", found(profiles)),
        )
    })?;
    let order = serde_json::from_str::<ProfileOrder>(text)
        .map(|o| o.profiles.0)
        .map_err(|e| r.schema("profiles", e.to_string()))?;
    let name: &str = match profile {
        Some(n) if profiles.contains_key(n) => n,
        Some(n) => {
            return Err(ProfileError::UnknownProfile {
                file: file.to_string(),
                name: n.to_string(),
                available: order,
            })
        }
        None => order
            .first()
            .ok_or_else(|| r.schema("profiles", "no profile in the file"))?,
    };
    let ppath = format!("profiles.{name}");
    let prof = profiles[name].as_object().ok_or_else(|| {
        r.schema(
            &ppath,
            format!("expected an object, found {}", found(&profiles[name])),
        )
    })?;
    if name.starts_with("VP_GPUINFO_") || name.starts_with("VP_VULKANINFO_") {
        r.kind = DescriptionKind::DeviceReport;
    }

    let api_path = format!("{ppath}.api-version");
    let api_value = prof
        .get("api-version")
        .ok_or_else(|| r.schema(&api_path, "missing"))?;
    let api_version = api_value
        .as_str()
        .and_then(parse_api_version)
        .ok_or_else(|| {
            r.schema(
                &api_path,
                format!(
                    "expected a version \"major.minor.patch\", found {}",
                    found(api_value)
                ),
            )
        })?;

    let caps = obj.get("capabilities").ok_or_else(|| {
        r.schema(
            "capabilities",
            "missing (the file's capability blocks are here)",
        )
    })?;
    let caps = caps.as_object().ok_or_else(|| {
        r.schema(
            "capabilities",
            format!("expected an object, found {}", found(caps)),
        )
    })?;
    let list_path = format!("{ppath}.capabilities");
    let list = prof.get("capabilities").ok_or_else(|| {
        r.schema(
            &list_path,
            "missing (the profile's capability blocks are named here)",
        )
    })?;
    let list = list.as_array().ok_or_else(|| {
        r.schema(
            &list_path,
            format!("expected an array, found {}", found(list)),
        )
    })?;
    let mut blocks = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let ip = format!("{list_path}[{i}]");
        match item {
            Value::String(b) => {
                let block = caps.get(b.as_str()).ok_or_else(|| {
                    r.schema(
                        &ip,
                        format!("no capability block `{b}` under `capabilities`"),
                    )
                })?;
                r.check_block(b, block)?;
                blocks.push((
                    b.as_str(),
                    block.as_object().expect("checked by check_block"),
                ));
            }
            Value::Array(_) => {
                return Err(ProfileError::Unsupported {
                    file: file.to_string(),
                    path: ip,
                    message: "alternative capability blocks (a list of names) are not read; \
                              choose one and name it alone"
                        .to_string(),
                })
            }
            _ => {
                return Err(r.schema(
                    ip,
                    format!("expected a capability block's name, found {}", found(item)),
                ))
            }
        }
    }
    r.blocks = blocks;
    describe(&r, name, prof, api_version)
}

fn describe(
    r: &Reader,
    name: &str,
    prof: &Map<String, Value>,
    api_version: ApiVersion,
) -> Result<DeviceDescription, ProfileError> {
    let report = r.report();

    // The API version of a device report's VkPhysicalDeviceProperties must be the profile's.
    if let Some((packed, p)) = r.first_u32(&[(PROPERTIES, vec!["apiVersion"])])? {
        let v = ApiVersion::from_packed(packed);
        if report && v != api_version {
            return Err(r.contradiction(
                p,
                format!(
                    "apiVersion {packed} is {v} but profiles.{name}.api-version is {api_version}"
                ),
            ));
        }
    }

    let f = |structs: &[&'static str], member: &'static str| r.flag("features", structs, member);
    let features = Features {
        shader_float64: f(VK10_FEATURES, "shaderFloat64")?,
        shader_int64: f(VK10_FEATURES, "shaderInt64")?,
        shader_int16: f(VK10_FEATURES, "shaderInt16")?,
        shader_float16: f(FLOAT16_INT8, "shaderFloat16")?,
        shader_int8: f(FLOAT16_INT8, "shaderInt8")?,
        storage_buffer_16bit_access: f(STORAGE16, "storageBuffer16BitAccess")?,
        uniform_and_storage_buffer_16bit_access: f(
            STORAGE16,
            "uniformAndStorageBuffer16BitAccess",
        )?,
        storage_push_constant16: f(STORAGE16, "storagePushConstant16")?,
        storage_buffer_8bit_access: f(STORAGE8, "storageBuffer8BitAccess")?,
        uniform_and_storage_buffer_8bit_access: f(STORAGE8, "uniformAndStorageBuffer8BitAccess")?,
        storage_push_constant8: f(STORAGE8, "storagePushConstant8")?,
        buffer_device_address: f(BDA, "bufferDeviceAddress")?,
        shader_buffer_int64_atomics: f(ATOMIC_INT64, "shaderBufferInt64Atomics")?,
        shader_shared_int64_atomics: f(ATOMIC_INT64, "shaderSharedInt64Atomics")?,
        shader_buffer_float32_atomics: f(ATOMIC_FLOAT, "shaderBufferFloat32Atomics")?,
        shader_buffer_float32_atomic_add: f(ATOMIC_FLOAT, "shaderBufferFloat32AtomicAdd")?,
        shader_buffer_float64_atomics: f(ATOMIC_FLOAT, "shaderBufferFloat64Atomics")?,
        shader_buffer_float64_atomic_add: f(ATOMIC_FLOAT, "shaderBufferFloat64AtomicAdd")?,
        shader_shared_float32_atomics: f(ATOMIC_FLOAT, "shaderSharedFloat32Atomics")?,
        shader_shared_float32_atomic_add: f(ATOMIC_FLOAT, "shaderSharedFloat32AtomicAdd")?,
        shader_shared_float64_atomics: f(ATOMIC_FLOAT, "shaderSharedFloat64Atomics")?,
        shader_shared_float64_atomic_add: f(ATOMIC_FLOAT, "shaderSharedFloat64AtomicAdd")?,
        shader_buffer_float32_atomic_min_max: f(ATOMIC_FLOAT2, "shaderBufferFloat32AtomicMinMax")?,
        shader_shared_float32_atomic_min_max: f(ATOMIC_FLOAT2, "shaderSharedFloat32AtomicMinMax")?,
        shader_buffer_float64_atomic_min_max: f(ATOMIC_FLOAT2, "shaderBufferFloat64AtomicMinMax")?,
        shader_shared_float64_atomic_min_max: f(ATOMIC_FLOAT2, "shaderSharedFloat64AtomicMinMax")?,
        vulkan_memory_model: f(MEMORY_MODEL, "vulkanMemoryModel")?,
        vulkan_memory_model_device_scope: f(MEMORY_MODEL, "vulkanMemoryModelDeviceScope")?,
        subgroup_size_control: f(SIZE_CONTROL_FEATURES, "subgroupSizeControl")?,
        compute_full_subgroups: f(SIZE_CONTROL_FEATURES, "computeFullSubgroups")?,
        shader_subgroup_extended_types: f(EXTENDED_TYPES, "shaderSubgroupExtendedTypes")?,
        shader_maximal_reconvergence: f(MAXIMAL_RECONVERGENCE, "shaderMaximalReconvergence")?,
        shader_subgroup_uniform_control_flow: f(
            UNIFORM_CONTROL_FLOW,
            "shaderSubgroupUniformControlFlow",
        )?,
        shader_float_controls2: f(FLOAT_CONTROLS2, "shaderFloatControls2")?,
    };

    let req = RequiredLimits::for_api(api_version);
    let limits = Limits {
        max_compute_shared_memory_size: r.limit(
            "maxComputeSharedMemorySize",
            req.max_compute_shared_memory_size,
        )?,
        max_compute_work_group_invocations: r.limit(
            "maxComputeWorkGroupInvocations",
            req.max_compute_work_group_invocations,
        )?,
        max_compute_work_group_size: r
            .limit3("maxComputeWorkGroupSize", req.max_compute_work_group_size)?,
        max_compute_work_group_count: r
            .limit3("maxComputeWorkGroupCount", req.max_compute_work_group_count)?,
        max_push_constants_size: r.limit("maxPushConstantsSize", req.max_push_constants_size)?,
        max_storage_buffer_range: r.limit("maxStorageBufferRange", req.max_storage_buffer_range)?,
        max_per_stage_descriptor_storage_buffers: r.limit(
            "maxPerStageDescriptorStorageBuffers",
            req.max_per_stage_descriptor_storage_buffers,
        )?,
        max_bound_descriptor_sets: r
            .limit("maxBoundDescriptorSets", req.max_bound_descriptor_sets)?,
    };

    let subgroups = subgroups(r, api_version)?;

    let fc = |member: &'static str| r.flag("properties", FLOAT_CONTROLS, member);
    let float_controls = FloatControls {
        denorm_behavior_independence: r.independence("denormBehaviorIndependence")?,
        rounding_mode_independence: r.independence("roundingModeIndependence")?,
        shader_signed_zero_inf_nan_preserve_float16: fc("shaderSignedZeroInfNanPreserveFloat16")?,
        shader_signed_zero_inf_nan_preserve_float32: fc("shaderSignedZeroInfNanPreserveFloat32")?,
        shader_signed_zero_inf_nan_preserve_float64: fc("shaderSignedZeroInfNanPreserveFloat64")?,
        shader_denorm_preserve_float16: fc("shaderDenormPreserveFloat16")?,
        shader_denorm_preserve_float32: fc("shaderDenormPreserveFloat32")?,
        shader_denorm_preserve_float64: fc("shaderDenormPreserveFloat64")?,
        shader_denorm_flush_to_zero_float16: fc("shaderDenormFlushToZeroFloat16")?,
        shader_denorm_flush_to_zero_float32: fc("shaderDenormFlushToZeroFloat32")?,
        shader_denorm_flush_to_zero_float64: fc("shaderDenormFlushToZeroFloat64")?,
        shader_rounding_mode_rte_float16: fc("shaderRoundingModeRTEFloat16")?,
        shader_rounding_mode_rte_float32: fc("shaderRoundingModeRTEFloat32")?,
        shader_rounding_mode_rte_float64: fc("shaderRoundingModeRTEFloat64")?,
        shader_rounding_mode_rtz_float16: fc("shaderRoundingModeRTZFloat16")?,
        shader_rounding_mode_rtz_float32: fc("shaderRoundingModeRTZFloat32")?,
        shader_rounding_mode_rtz_float64: fc("shaderRoundingModeRTZFloat64")?,
    };

    let e = |n: &str| r.has_extension(n);
    let extensions = Extensions {
        portability_subset: e("VK_KHR_portability_subset"),
        subgroup_size_control: e("VK_EXT_subgroup_size_control"),
        shader_float_controls: e("VK_KHR_shader_float_controls"),
        shader_float_controls2: e("VK_KHR_shader_float_controls2"),
        shader_maximal_reconvergence: e("VK_KHR_shader_maximal_reconvergence"),
        shader_subgroup_uniform_control_flow: e("VK_KHR_shader_subgroup_uniform_control_flow"),
        shader_subgroup_extended_types: e("VK_KHR_shader_subgroup_extended_types"),
        buffer_device_address: e("VK_KHR_buffer_device_address"),
        shader_atomic_int64: e("VK_KHR_shader_atomic_int64"),
        shader_atomic_float: e("VK_EXT_shader_atomic_float"),
        shader_atomic_float2: e("VK_EXT_shader_atomic_float2"),
        vulkan_memory_model: e("VK_KHR_vulkan_memory_model"),
        shader_float16_int8: e("VK_KHR_shader_float16_int8"),
        storage_8bit: e("VK_KHR_8bit_storage"),
        storage_16bit: e("VK_KHR_16bit_storage"),
        shader_non_semantic_info: e("VK_KHR_shader_non_semantic_info"),
        spirv_1_4: e("VK_KHR_spirv_1_4"),
    };

    let identity = identity(r, name, prof)?;

    Ok(DeviceDescription {
        kind: r.kind,
        api_version,
        identity,
        portability: extensions.portability_subset,
        features,
        limits,
        subgroups,
        float_controls,
        extensions,
        notes: Vec::new(),
        probed: None,
    })
}

fn subgroups(r: &Reader, api_version: ApiVersion) -> Result<Subgroups, ProfileError> {
    let size_srcs = vec![
        (SUBGROUP_PROPERTIES, vec!["subgroupSize"]),
        (VULKAN11_PROPERTIES, vec!["subgroupSize"]),
    ];
    let size = r.number(&size_srcs, Bound::AtLeast)?;
    let min = r.number(
        &sources(SIZE_CONTROL_PROPERTIES, "minSubgroupSize"),
        Bound::AtMost,
    )?;
    let max = r.number(
        &sources(SIZE_CONTROL_PROPERTIES, "maxSubgroupSize"),
        Bound::AtLeast,
    )?;
    let stages = r.stages_have_compute(&[
        (SUBGROUP_PROPERTIES, vec!["supportedStages"]),
        (VULKAN11_PROPERTIES, vec!["subgroupSupportedStages"]),
    ])?;
    let required_stages = r.stages_have_compute(&sources(
        SIZE_CONTROL_PROPERTIES,
        "requiredSubgroupSizeStages",
    ))?;
    let ops = r.operations(&[
        (SUBGROUP_PROPERTIES, vec!["supportedOperations"]),
        (VULKAN11_PROPERTIES, vec!["subgroupSupportedOperations"]),
    ])?;
    // Vulkan 1.1 requires sub-group support in the compute stage with the basic operations.
    let v11 = api_version.at_least(1, 1);
    let required_ops = if v11 {
        SubgroupOperations::BASIC
    } else {
        SubgroupOperations::empty()
    };

    if r.report() {
        for (v, p, what) in [
            (&size, "subgroupSize"),
            (&min, "minSubgroupSize"),
            (&max, "maxSubgroupSize"),
        ]
        .iter()
        .filter_map(|(x, what)| x.as_ref().map(|(v, p)| (*v, p, *what)))
        {
            if !v.is_power_of_two() {
                return Err(r.contradiction(p, format!("{what} must be a power of two, found {v}")));
            }
        }
        if let (Some((lo, lp)), Some((hi, hp))) = (&min, &max) {
            if lo > hi {
                return Err(r.contradiction(
                    lp,
                    format!("minSubgroupSize {lo} is greater than maxSubgroupSize {hi} ({hp})"),
                ));
            }
        }
        let sz = size.as_ref().map(|(v, _)| *v);
        let (lo, hi) = match (&min, &max) {
            (Some((a, _)), Some((b, _))) => (*a, *b),
            (Some((a, _)), None) => (*a, (*a).max(sz.unwrap_or(*a))),
            (None, Some((b, _))) => ((*b).min(sz.unwrap_or(*b)), *b),
            (None, None) => (sz.unwrap_or(1), sz.unwrap_or(1)),
        };
        if let Some((s, sp)) = &size {
            if *s < lo || *s > hi {
                return Err(r.contradiction(
                    sp,
                    format!(
                        "subgroupSize {s} is outside minSubgroupSize..maxSubgroupSize = {lo}..{hi}"
                    ),
                ));
            }
        }
        Ok(Subgroups {
            // without subgroupSize, a range of one size determines it; a wider range gives
            // only a lower bound
            subgroup_size: sz.unwrap_or(lo),
            subgroup_size_exact: sz.is_some() || lo == hi,
            min_subgroup_size: lo,
            max_subgroup_size: hi,
            required_size_stages_compute: required_stages.unwrap_or(false),
            supported_stages_compute: stages.unwrap_or(v11),
            supported_operations: ops.unwrap_or(required_ops),
        })
    } else {
        Ok(Subgroups {
            subgroup_size: size.map_or(1, |(v, _)| v.max(1)),
            subgroup_size_exact: false,
            // a missing bound is the vacuous one: every device's minSubgroupSize is at most
            // 128 and its maxSubgroupSize at least 1
            min_subgroup_size: min.map_or(MAX_SUBGROUP_SIZE, |(v, _)| v),
            max_subgroup_size: max.map_or(1, |(v, _)| v),
            required_size_stages_compute: required_stages.unwrap_or(false),
            supported_stages_compute: stages.unwrap_or(false) || v11,
            supported_operations: ops.unwrap_or_default().union(required_ops),
        })
    }
}

fn identity(r: &Reader, name: &str, prof: &Map<String, Value>) -> Result<Identity, ProfileError> {
    let label = match prof.get("label") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) => {
            return Err(r.schema(
                format!("profiles.{name}.label"),
                format!("expected a string, found {}", found(v)),
            ))
        }
    };
    // The Vulkan Hardware Database labels its exports "<device> driver <version> on <OS>".
    let (label_device, label_driver) = match (&label, r.report()) {
        (Some(l), true) => match l.split_once(" driver ") {
            Some((dev, rest)) => (
                Some(dev.to_string()),
                Some(
                    rest.rsplit_once(" on ")
                        .map_or(rest, |(v, _)| v)
                        .to_string(),
                ),
            ),
            None => (None, None),
        },
        _ => (None, None),
    };
    let prop = |m: &'static str| vec![(PROPERTIES, vec![m])];
    Ok(Identity {
        profile_name: name.to_string(),
        device_name: r.first_string(&prop("deviceName"))?.or(label_device),
        driver_version: r
            .first_u32(&prop("driverVersion"))?
            .map(|(v, _)| v.to_string())
            .or(label_driver),
        label,
        vendor_id: r.first_u32(&prop("vendorID"))?.map(|(v, _)| v),
        device_id: r.first_u32(&prop("deviceID"))?.map(|(v, _)| v),
        device_type: r.first_string(&prop("deviceType"))?,
        driver_id: r.first_string(&sources(DRIVER_PROPERTIES, "driverID"))?,
        driver_name: r.first_string(&sources(DRIVER_PROPERTIES, "driverName"))?,
        driver_info: r.first_string(&sources(DRIVER_PROPERTIES, "driverInfo"))?,
    })
}
