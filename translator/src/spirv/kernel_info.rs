//! What a translated module says about its kernels, inside the module: one
//! `OpModuleProcessed` string per kernel (docs/abi.md, "Kernel
//! descriptions"), so that `pisa run --spirv` of a module written by
//! `pisa spirv` checks its arguments as a PISA program's are checked.
//! Hand-written SPIR-V has none, and its arguments stay unchecked.
//!
//! Format: `pisa-kernel bytes=N [reqd=X,Y,Z] [max=N] params=NAME:OFFSET:SIZE:ALIGN,... name=KERNEL`
//! (the kernel's name last: it may contain anything).
//!
//! The module also carries what the runtime's program load takes from the
//! translator besides the kernels (docs/abi.md, "Program descriptions"): one
//! `pisa-program` header with the data block's size, a hash of its initial
//! bytes and the counts of the strings that follow, the non-zero runs of
//! the initial bytes (`pisa-data`), the relocations (`pisa-reloc`) and the
//! variables with their host names (`pisa-global`). [`parse_program`] reads
//! them back and refuses a set that is not whole.

use crate::abi::{DataVar, KernelLayout, Layout, ParamSlot, RelocTarget, Relocation};
use crate::ir::{Linkage, Space};

const TAG: &str = "pisa-kernel ";
const CAPABILITY: &str = "pisa-capability ";
const PROGRAM: &str = "pisa-program ";
const DATA: &str = "pisa-data ";
const RELOC: &str = "pisa-reloc ";
const GLOBAL: &str = "pisa-global ";
/// The most bytes of the data block one `pisa-data` string carries (as
/// hexadecimal digits: a string of 128 KiB, within an instruction's 65,535
/// words).
const DATA_CHUNK: usize = 64 * 1024;
/// Zero bytes that end a run of `pisa-data` (shorter gaps stay in the run).
const ZERO_GAP: usize = 16;

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
    let max = k
        .max_work_group_items
        .map_or(String::new(), |m| format!(" max={m}"));
    format!(
        "{TAG}bytes={}{reqd}{max} params={} name={}",
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
            "max" => k.max_work_group_items = Some(v.parse().ok()?),
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

/// FNV-1a, 64 bits: the hash of the data block's initial bytes that the
/// header carries, so that a module with some `pisa-data` strings removed
/// or changed is refused. Trailing zero bytes are left out: the initial
/// image (`Layout::data_init`) ends at its last initialized byte or earlier,
/// and the rest of the block is zeros either way.
fn hash(bytes: &[u8]) -> u64 {
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    bytes[..end].iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The non-zero runs of `bytes` as (offset, run), each at most
/// [`DATA_CHUNK`] bytes.
fn runs(bytes: &[u8]) -> Vec<(usize, &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0 {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i;
        // extend over gaps of fewer than ZERO_GAP zeros
        while i < bytes.len() && i - start < DATA_CHUNK {
            if bytes[i] != 0 {
                end = i + 1;
            } else if i - end >= ZERO_GAP {
                break;
            }
            i += 1;
        }
        out.push((start, &bytes[start..end]));
        i = end;
    }
    out
}

/// The strings that describe a module's program besides its kernels: the
/// `pisa-program` header first.
pub fn describe_program(l: &Layout) -> Vec<String> {
    let data = runs(&l.data_init);
    let mut out = vec![format!(
        "{PROGRAM}data={} hash={:016x} chunks={} relocs={} globals={} printf={} private={} shared={} inlined={}",
        l.data_bytes,
        hash(&l.data_init),
        data.len(),
        l.relocations.len(),
        l.data.len(),
        u8::from(l.uses_printf),
        l.private_bytes,
        l.shared_bytes,
        l.inlined_instructions,
    )];
    for (off, run) in data {
        out.push(format!("{DATA}{off} {}", hex(run)));
    }
    for r in &l.relocations {
        let target = match r.target {
            RelocTarget::Data(o) => format!("data:{o}"),
            RelocTarget::Function(v) => format!("function:{v}"),
        };
        out.push(format!("{RELOC}{} {target} {}", r.offset, r.addend));
    }
    for v in &l.data {
        // the host name length-prefixed, the name last: both may contain
        // anything
        let host = v
            .host_name
            .as_ref()
            .map_or("-".to_string(), |h| format!("{}:{h}", h.len()));
        let space = if v.space == Space::Const {
            "const"
        } else {
            "global"
        };
        out.push(format!(
            "{GLOBAL}{} {} {} {space} {host} {}",
            v.offset, v.size, v.align, v.name
        ));
    }
    out
}

/// Why a module's program description cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the module's program description (docs/abi.md, \"Program descriptions\") is damaged: {0}")]
pub struct DescriptionError(pub String);

fn field<'a>(fields: &[(&'a str, &'a str)], key: &str) -> Result<&'a str, DescriptionError> {
    fields
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| *v)
        .ok_or_else(|| DescriptionError(format!("the header has no `{key}=`")))
}

fn number<T: std::str::FromStr>(s: &str, what: &str) -> Result<T, DescriptionError> {
    s.parse()
        .map_err(|_| DescriptionError(format!("`{s}` is not a valid {what}")))
}

fn parse_global(s: &str) -> Option<DataVar> {
    let mut it = s.splitn(5, ' ');
    let offset = it.next()?.parse().ok()?;
    let size = it.next()?.parse().ok()?;
    let align = it.next()?.parse().ok()?;
    let space = match it.next()? {
        "const" => Space::Const,
        "global" => Space::Global,
        _ => return None,
    };
    let rest = it.next()?;
    let (host_name, name) = if let Some(name) = rest.strip_prefix("- ") {
        (None, name)
    } else {
        let (len, rest) = rest.split_once(':')?;
        let len: usize = len.parse().ok()?;
        let host = rest.get(..len)?;
        (Some(host.to_string()), rest.get(len..)?.strip_prefix(' ')?)
    };
    Some(DataVar {
        name: name.to_string(),
        space,
        offset,
        size,
        align,
        host_name,
        linkage: Linkage::Internal,
    })
}

/// The program a module describes (its `OpModuleProcessed` strings, in
/// order): `Ok(None)` when it has no `pisa-program` header (SPIR-V from
/// elsewhere), an error when the description is not whole or not
/// consistent (strings removed or changed). The layout's kernels are the
/// module's `pisa-kernel` descriptions; arenas and checked-mode sites are
/// not carried (the module itself declares its arenas).
pub fn parse_program(strings: &[String]) -> Result<Option<Layout>, DescriptionError> {
    let headers: Vec<&str> = strings
        .iter()
        .filter_map(|s| s.strip_prefix(PROGRAM))
        .collect();
    let header = match headers[..] {
        [] => return Ok(None),
        [h] => h,
        _ => return Err(DescriptionError("it has several headers".into())),
    };
    let fields: Vec<(&str, &str)> = header
        .split(' ')
        .map(|f| f.split_once('=').unwrap_or((f, "")))
        .collect();
    let data_bytes: u64 = number(field(&fields, "data")?, "size")?;
    let want_hash = u64::from_str_radix(field(&fields, "hash")?, 16)
        .map_err(|_| DescriptionError("the hash is not hexadecimal".into()))?;
    let chunks: usize = number(field(&fields, "chunks")?, "count")?;
    let relocs: usize = number(field(&fields, "relocs")?, "count")?;
    let globals: usize = number(field(&fields, "globals")?, "count")?;
    let uses_printf = match field(&fields, "printf")? {
        "0" => false,
        "1" => true,
        v => return Err(DescriptionError(format!("`printf={v}`"))),
    };
    let private_bytes: u32 = number(field(&fields, "private")?, "size")?;
    let shared_bytes: u32 = number(field(&fields, "shared")?, "size")?;
    let inlined_instructions: u64 = number(field(&fields, "inlined")?, "count")?;
    let size = usize::try_from(data_bytes)
        .map_err(|_| DescriptionError(format!("a data block of {data_bytes} bytes")))?;
    // the initial image grows to the end of the last data string (the rest of
    // the block is zeros, as `Layout::data_init` leaves it)
    let mut data_init: Vec<u8> = Vec::new();
    let mut l = Layout {
        data_bytes,
        uses_printf,
        private_bytes,
        shared_bytes,
        inlined_instructions,
        ..Layout::default()
    };
    let (mut seen_chunks, mut seen_relocs) = (0usize, 0usize);
    for s in strings {
        if let Some(rest) = s.strip_prefix(DATA) {
            seen_chunks += 1;
            let bad = || DescriptionError(format!("bad data string `{DATA}{rest:.40}`"));
            let (off, digits) = rest.split_once(' ').ok_or_else(bad)?;
            let off: usize = off.parse().map_err(|_| bad())?;
            let bytes = unhex(digits).ok_or_else(bad)?;
            let end = off
                .checked_add(bytes.len())
                .filter(|&e| e <= size)
                .ok_or_else(|| {
                    DescriptionError(format!(
                        "data at byte {off} lies outside the data block of {data_bytes} bytes"
                    ))
                })?;
            if data_init.len() < end {
                data_init
                    .try_reserve_exact(end - data_init.len())
                    .map_err(|_| {
                        DescriptionError(format!(
                            "a data block of {data_bytes} bytes does not fit in memory"
                        ))
                    })?;
                data_init.resize(end, 0u8);
            }
            data_init[off..end].copy_from_slice(&bytes);
        } else if let Some(rest) = s.strip_prefix(RELOC) {
            seen_relocs += 1;
            let bad = || DescriptionError(format!("bad relocation `{RELOC}{rest}`"));
            let parts: Vec<&str> = rest.split(' ').collect();
            let [offset, target, addend] = parts[..] else {
                return Err(bad());
            };
            let offset: u64 = offset.parse().map_err(|_| bad())?;
            if offset.checked_add(8).is_none_or(|e| e > data_bytes) {
                return Err(DescriptionError(format!(
                    "a relocation at byte {offset} lies outside the data block of {data_bytes} bytes"
                )));
            }
            let target = match target.split_once(':') {
                Some(("data", o)) => RelocTarget::Data(o.parse().map_err(|_| bad())?),
                Some(("function", v)) => RelocTarget::Function(v.parse().map_err(|_| bad())?),
                _ => return Err(bad()),
            };
            l.relocations.push(Relocation {
                offset,
                target,
                addend: addend.parse().map_err(|_| bad())?,
            });
        } else if let Some(rest) = s.strip_prefix(GLOBAL) {
            let v = parse_global(rest)
                .ok_or_else(|| DescriptionError(format!("bad variable `{GLOBAL}{rest}`")))?;
            if v.offset.checked_add(v.size).is_none_or(|e| e > data_bytes) {
                return Err(DescriptionError(format!(
                    "variable `{}` lies outside the data block of {data_bytes} bytes",
                    v.name
                )));
            }
            l.data.push(v);
        } else if let Some(k) = parse(s) {
            l.kernels.push(k);
        }
    }
    if (seen_chunks, seen_relocs, l.data.len()) != (chunks, relocs, globals) {
        return Err(DescriptionError(format!(
            "the header announces {chunks} data strings, {relocs} relocations and {globals} variables; the module has {seen_chunks}, {seen_relocs} and {}",
            l.data.len()
        )));
    }
    if hash(&data_init) != want_hash {
        return Err(DescriptionError(
            "the data block's initial bytes do not match the header's hash".into(),
        ));
    }
    l.data_init = data_init;
    Ok(Some(l))
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

    /// A program's description reads back as its layout: the data image
    /// (zero runs left out), relocations, variables with odd host names.
    #[test]
    fn programs_read_back() {
        let mut l = Layout {
            data_bytes: 100_000,
            uses_printf: true,
            private_bytes: 12,
            shared_bytes: 64,
            inlined_instructions: 77,
            ..Layout::default()
        };
        l.data_init = vec![0; 100_000];
        l.data_init[3] = 7;
        l.data_init[90_000..90_020].fill(0xAB);
        l.relocations.push(Relocation {
            offset: 8,
            target: RelocTarget::Data(90_000),
            addend: -4,
        });
        l.relocations.push(Relocation {
            offset: 16,
            target: RelocTarget::Function(3),
            addend: 0,
        });
        for (name, host) in [("t", Some("a b: c")), ("u", None)] {
            l.data.push(DataVar {
                name: name.into(),
                space: Space::Global,
                offset: 0,
                size: 24,
                align: 8,
                host_name: host.map(String::from),
                linkage: Linkage::Internal,
            });
        }
        let strings = describe_program(&l);
        assert_eq!(strings.len(), 1 + 2 + 2 + 2);
        assert_eq!(strings[1], "pisa-data 3 07");
        let back = parse_program(&strings).unwrap().unwrap();
        // the same block: the images may differ only in trailing zeros
        assert_eq!(back.data_block(0), l.data_block(0));
        assert_eq!(back.data_init, l.data_init[..90_020]);
        assert_eq!(back.relocations, l.relocations);
        assert_eq!(back.data[0].host_name.as_deref(), Some("a b: c"));
        assert_eq!(back.data[1].host_name, None);
        assert_eq!((back.data[1].name.as_str(), back.data[1].size), ("u", 24));
        assert!(back.uses_printf);
        assert_eq!(back.inlined_instructions, 77);
        assert_eq!(parse_program(&[]).unwrap().map(|l| l.data_bytes), None);
        let e = parse_program(&strings[..6]).unwrap_err();
        assert!(
            e.0.contains("2 variables; the module has 2, 2 and 1"),
            "{e}"
        );
    }
}
