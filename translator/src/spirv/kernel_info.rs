//! What a translated module says about its kernels, inside the module: one
//! `OpModuleProcessed` string per kernel (docs/abi.md, "Kernel
//! descriptions"), so that `pisa run --spirv` of a module written by
//! `pisa spirv` checks its arguments as a PISA program's are checked.
//! Hand-written SPIR-V has none, and its arguments stay unchecked.
//!
//! Format: `pisa-kernel bytes=N [reqd=X,Y,Z] params=NAME:OFFSET:SIZE:ALIGN,... name=KERNEL`
//! (the kernel's name last: it may contain anything).

use super::layout::{KernelLayout, ParamSlot};

const TAG: &str = "pisa-kernel ";
const CAPABILITY: &str = "pisa-capability ";

/// Why a module declares a capability: `pisa-capability N WHAT` (the first
/// instruction that needed it, `` `fsin.f` at k.pisa:5:2 ``).
pub fn describe_capability(cap: u32, what: &str) -> String {
    format!("{CAPABILITY}{cap} {what}")
}

/// A capability's reason, if `s` is one.
pub fn parse_capability(s: &str) -> Option<(u32, &str)> {
    let (n, what) = s.strip_prefix(CAPABILITY)?.split_once(' ')?;
    Some((n.parse().ok()?, what))
}

/// The description of a kernel.
pub fn describe(k: &KernelLayout) -> String {
    let params: Vec<String> = k
        .params
        .iter()
        .map(|p| format!("{}:{}:{}:{}", p.name, p.offset, p.size, p.align))
        .collect();
    let reqd = k
        .reqd_work_group_size
        .map_or(String::new(), |[x, y, z]| format!(" reqd={x},{y},{z}"));
    format!(
        "{TAG}bytes={}{reqd} params={} name={}",
        k.param_bytes,
        params.join(","),
        k.name
    )
}

/// A kernel's description, if `s` is one.
pub fn parse(s: &str) -> Option<KernelLayout> {
    let rest = s.strip_prefix(TAG)?;
    let (fields, name) = rest.split_once(" name=")?;
    let mut k = KernelLayout {
        name: name.to_string(),
        params: Vec::new(),
        param_bytes: 0,
        reqd_work_group_size: None,
        max_work_group_items: None,
    };
    for f in fields.split(' ') {
        let (key, v) = f.split_once('=')?;
        match key {
            "bytes" => k.param_bytes = v.parse().ok()?,
            "reqd" => {
                let d: Vec<u32> = v
                    .split(',')
                    .map(|x| x.parse().ok())
                    .collect::<Option<_>>()?;
                k.reqd_work_group_size = Some([*d.first()?, *d.get(1)?, *d.get(2)?]);
            }
            "params" if v.is_empty() => {}
            "params" => {
                for p in v.split(',') {
                    let parts: Vec<&str> = p.split(':').collect();
                    let [name, offset, size, align] = parts[..] else {
                        return None;
                    };
                    k.params.push(ParamSlot {
                        name: name.to_string(),
                        offset: offset.parse().ok()?,
                        size: size.parse().ok()?,
                        align: align.parse().ok()?,
                    });
                }
            }
            _ => return None,
        }
    }
    Some(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_read_back() {
        let k = KernelLayout {
            name: "odd name=with spaces".into(),
            params: vec![
                ParamSlot {
                    name: "a".into(),
                    offset: 0,
                    size: 4,
                    align: 8,
                },
                ParamSlot {
                    name: "x".into(),
                    offset: 8,
                    size: 8,
                    align: 8,
                },
            ],
            param_bytes: 16,
            reqd_work_group_size: Some([64, 2, 1]),
            max_work_group_items: None,
        };
        let s = describe(&k);
        assert_eq!(
            s,
            "pisa-kernel bytes=16 reqd=64,2,1 params=a:0:4:8,x:8:8:8 name=odd name=with spaces"
        );
        let back = parse(&s).unwrap();
        assert_eq!(back.name, k.name);
        assert_eq!(back.param_bytes, 16);
        assert_eq!(back.reqd_work_group_size, Some([64, 2, 1]));
        assert_eq!(back.params.len(), 2);
        assert_eq!((back.params[1].offset, back.params[1].size), (8, 8));
        assert!(parse("spirv-opt --O").is_none());
        let none = parse("pisa-kernel bytes=0 params= name=k").unwrap();
        assert!(none.params.is_empty());
    }
}
