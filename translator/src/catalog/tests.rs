use super::*;

#[test]
fn catalog_loads_every_form() {
    let c = catalog();
    assert_eq!(c.instructions.len(), 87);
    assert_eq!(c.forms.len(), 144);
    // every instruction has at least one form
    for (i, ins) in c.instructions.iter().enumerate() {
        assert!(
            c.forms.iter().any(|f| f.instruction == i),
            "{} has no form",
            ins.name
        );
    }
}

#[test]
fn sentences_have_meaning() {
    let c = catalog();
    let f = &c.forms[c.forms_of("dp4a")[0]];
    assert_eq!(f.quals.len(), 3);
    assert!(f.quals[1].optional && f.quals[1].name == "dsat");
    assert_eq!(f.operands[0].bits, Some(32));
    assert!(f.operands[1].kinds.has(Kinds::IMM));
    assert!(matches!(f.rules[0].0, Rule::Holds(_)));
    let ld = c.forms_of("ld");
    assert!(ld
        .iter()
        .any(|&i| c.forms[i].quals[0].literal && c.forms[i].quals[0].name == "param"));
    let ext = &c.forms[c.forms_of("extract")[1]];
    assert_eq!(ext.quals[0].values.len(), 64);
}
