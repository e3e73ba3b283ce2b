//! docs/abi.md says what the translator and the runtime do: its tables are
//! checked against the one definition they share (the push-constant block,
//! the check block), so the document cannot drift from the code.

use pisa_translator::abi::{is_address_member, PUSH_BYTES, PUSH_MEMBERS};
use pisa_translator::spirv::checked;

fn doc() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/abi.md")).unwrap()
}

/// The rows of the first table after `heading`: its cells, trimmed.
fn table_after(doc: &str, heading: &str) -> Vec<Vec<String>> {
    let start = doc
        .find(heading)
        .unwrap_or_else(|| panic!("no `{heading}`"));
    doc[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn the_push_constant_table_is_the_translators() {
    let doc = doc();
    assert!(
        doc.contains(&format!("## Push constants ({PUSH_BYTES} bytes")),
        "docs/abi.md must give the block's size, {PUSH_BYTES} bytes"
    );
    // (name, offset, 64-bit) as the document lists them, x/y/z rows expanded
    let mut documented = Vec::new();
    for row in table_after(&doc, "## Push constants") {
        let name = row[1].trim_matches('`');
        if name.starts_with('(') {
            continue; // padding
        }
        let offsets: Vec<u32> = row[0]
            .split(',')
            .map(|o| o.trim().parse().unwrap())
            .collect();
        let wide = row[2].starts_with("`uvec2`");
        match name.strip_suffix("x/y/z") {
            Some(stem) => {
                for (o, c) in offsets.iter().zip(["x", "y", "z"]) {
                    documented.push((format!("{stem}{c}"), *o, wide));
                }
            }
            None => documented.push((name.to_string(), offsets[0], wide)),
        }
    }
    let code: Vec<(String, u32, bool)> = PUSH_MEMBERS
        .iter()
        .enumerate()
        .map(|(i, (n, o))| (n.to_string(), *o, is_address_member(i)))
        .collect();
    assert_eq!(documented, code);
}

#[test]
fn the_check_block_table_is_the_translators() {
    let rows = table_after(&doc(), "The check block (");
    let offsets: Vec<Vec<u64>> = rows
        .iter()
        .map(|r| r[0].split(',').map(|o| o.trim().parse().unwrap()).collect())
        .collect();
    assert_eq!(
        offsets,
        [
            vec![checked::CHECK_KIND],
            vec![checked::CHECK_SITE],
            vec![checked::CHECK_ADDRESS],
            vec![checked::CHECK_BYTES, checked::CHECK_SPACE],
            vec![checked::CHECK_LOCAL_ID, checked::CHECK_GROUP_ID],
            vec![checked::CHECK_SINK],
            vec![checked::CHECK_TABLE],
        ]
    );
    assert!(rows[5][1].contains(&format!("({} bytes)", checked::SINK_BYTES)));
    assert!(rows[6][1].contains(&format!(
        "{},{:03} ×",
        checked::CHECK_TABLE_ENTRIES / 1000,
        checked::CHECK_TABLE_ENTRIES % 1000
    )));
}
