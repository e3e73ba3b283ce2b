//! Parses the catalog data files (see `data/*.isa` and `tools/extract_catalog.py`).

use super::sentences::{apply_interp_sentence, apply_operand_sentence, parse_rule, OperandSpec};
use super::{Catalog, Form, Instruction, QualSlot};
use std::collections::HashMap;

pub fn load(groups: &[(&'static str, &'static str)]) -> Result<Catalog, String> {
    let mut instructions = Vec::new();
    let mut forms: Vec<Form> = Vec::new();
    for &(group, text) in groups {
        // A form's lines are collected, then built once complete.
        let mut pending: Option<(String, Vec<&str>)> = None;
        let flush = |pending: &mut Option<(String, Vec<&str>)>,
                     forms: &mut Vec<Form>,
                     instr: usize|
         -> Result<(), String> {
            if let Some((title, lines)) = pending.take() {
                forms.push(build_form(instr, title, &lines).map_err(|e| format!("{group}: {e}"))?);
            }
            Ok(())
        };
        for line in text.lines() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (kw, rest) = line.split_once(' ').unwrap_or((line, ""));
            match kw {
                "instruction" => {
                    flush(&mut pending, &mut forms, instructions.len().wrapping_sub(1))?;
                    let (name, summary) = rest.split_once(' ').unwrap_or((rest, ""));
                    instructions.push(Instruction {
                        name: name.to_string(),
                        summary: summary.trim_matches('"').to_string(),
                        group,
                    });
                }
                "form" => {
                    flush(&mut pending, &mut forms, instructions.len().wrapping_sub(1))?;
                    pending = Some((rest.trim_matches('"').to_string(), Vec::new()));
                }
                _ => match pending.as_mut() {
                    Some((_, lines)) => lines.push(line),
                    None => return Err(format!("{group}: line outside a form: {line}")),
                },
            }
        }
        flush(&mut pending, &mut forms, instructions.len().wrapping_sub(1))?;
    }
    let mut by_opcode: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, f) in forms.iter().enumerate() {
        by_opcode.entry(f.opcode.clone()).or_default().push(i);
    }
    Ok(Catalog {
        instructions,
        forms,
        by_opcode,
    })
}

fn build_form(instruction: usize, title: String, lines: &[&str]) -> Result<Form, String> {
    let mut syntax = "";
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut sentences = Vec::new();
    let mut interps = Vec::new();
    let mut rules = Vec::new();
    let mut version = String::new();
    let mut target = String::new();
    for line in lines {
        let (kw, rest) = line.split_once(' ').unwrap_or((line, ""));
        match kw {
            "syntax" => syntax = rest,
            "qual" => groups.push(parse_group(rest)?),
            "operand" => sentences.push(rest),
            "interp" => interps.push(rest),
            "rule" => rules.push(rest),
            "version" => version = rest.to_string(),
            "target" => target = rest.to_string(),
            _ => return Err(format!("unknown catalog line: {line}")),
        }
    }
    let (mnemonic, ops_text) = syntax
        .split_once(' ')
        .map(|(m, o)| (m, o.trim()))
        .unwrap_or((syntax, ""));
    let (opcode, quals) = parse_mnemonic(mnemonic, &groups)?;
    let mut operands = parse_operands(ops_text)?;
    for s in sentences {
        apply_operand_sentence(s, &mut operands)?;
    }
    for s in interps {
        apply_interp_sentence(s, &mut operands)?;
    }
    let rules = rules
        .into_iter()
        .map(|r| parse_rule(r).map(|p| (p, r.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Form {
        instruction,
        title,
        syntax: syntax.split_whitespace().collect::<Vec<_>>().join(" "),
        opcode,
        quals,
        operands,
        rules,
        version,
        target,
    })
}

/// `.type = { .16b, .32b }`, `.index = { .0, ..., .63 }`.
fn parse_group(s: &str) -> Result<(String, Vec<String>), String> {
    let (name, vals) = s
        .split_once('=')
        .ok_or_else(|| format!("bad qualifier group: {s}"))?;
    let name = name.trim().trim_start_matches('.').to_string();
    let vals = vals.trim().trim_start_matches('{').trim_end_matches('}');
    let items: Vec<&str> = vals
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < items.len() {
        if items[i] == "..." {
            let lo: u32 = out
                .last()
                .and_then(|v: &String| v.parse().ok())
                .ok_or_else(|| format!("bad range in: {s}"))?;
            let hi: u32 = items
                .get(i + 1)
                .and_then(|v| v.trim_start_matches('.').parse().ok())
                .ok_or_else(|| format!("bad range in: {s}"))?;
            out.extend((lo + 1..hi).map(|v| v.to_string()));
        } else {
            out.push(items[i].trim_start_matches('.').to_string());
        }
        i += 1;
    }
    Ok((name, out))
}

fn parse_mnemonic(
    m: &str,
    groups: &[(String, Vec<String>)],
) -> Result<(String, Vec<QualSlot>), String> {
    let end = m.find(['.', '<']).unwrap_or(m.len());
    let opcode = m[..end].to_string();
    let mut rest = &m[end..];
    let mut quals = Vec::new();
    while !rest.is_empty() {
        let optional = rest.starts_with('<');
        let body = if optional {
            let close = rest.find('>').ok_or_else(|| format!("bad mnemonic: {m}"))?;
            let b = &rest[1..close];
            rest = &rest[close + 1..];
            b
        } else {
            let next = rest[1..].find(['.', '<']).map_or(rest.len(), |i| i + 1);
            let b = &rest[..next];
            rest = &rest[next..];
            b
        };
        let name = body.trim_start_matches('.').to_string();
        let slot = match groups.iter().find(|(g, _)| *g == name) {
            Some((_, values)) => QualSlot {
                name,
                optional,
                literal: false,
                values: values.clone(),
            },
            None => QualSlot {
                values: vec![name.clone()],
                name,
                optional,
                literal: true,
            },
        };
        quals.push(slot);
    }
    Ok((opcode, quals))
}

/// `dst, [addr], src0 <, src1>`, `<!>pred, retval, target (<arg1> ...)`.
fn parse_operands(s: &str) -> Result<Vec<OperandSpec>, String> {
    let mut ops = Vec::new();
    let (s, call) = match s.find('(') {
        Some(i) => (&s[..i], true),
        None => (s, false),
    };
    let s = s.replace("<, ", ", <");
    for piece in s.split(',') {
        let mut p = piece.trim();
        if p.is_empty() {
            continue;
        }
        let mut optional = false;
        let mut negatable = false;
        if let Some(rest) = p.strip_prefix("<!>") {
            negatable = true;
            p = rest;
        } else if p.starts_with('<') && p.ends_with('>') {
            optional = true;
            p = &p[1..p.len() - 1];
        }
        let p = p.trim_start_matches('[').trim_end_matches(']');
        let (name, swizzled) = match p.strip_suffix(".swizzle") {
            Some(n) => (n, true),
            None => (p, false),
        };
        let mut spec = OperandSpec::new(name.trim());
        // `return.cond %p;` in the spec's own examples omits `retval`; the
        // return-type rule decides when a value is required
        spec.optional = optional || name.trim() == "retval";
        spec.negatable = negatable;
        spec.swizzled = swizzled;
        ops.push(spec);
    }
    if call {
        let last = ops.last_mut().ok_or("call syntax without a target")?;
        last.call = true;
    }
    Ok(ops)
}
