use pisa_vk_runtime::*;

#[test]
fn saxpy_runs() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shaders/saxpy.pisa"
    ))
    .unwrap();
    let m = pisa_translator::assemble("saxpy.pisa", &src).unwrap();
    let mut rt = Runtime::new(RuntimeOptions {
        validation: true,
        ..Default::default()
    })
    .unwrap();
    let p = rt.load(&m).unwrap();
    let n = 1000u32;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let bx = rt.buffer_from(&x).unwrap();
    let by = rt.buffer_from(&y).unwrap();
    let args = vec![
        2.0f32.to_le_bytes().to_vec(),
        rt.buffer_address(bx).unwrap().to_le_bytes().to_vec(),
        rt.buffer_address(by).unwrap().to_le_bytes().to_vec(),
        n.to_le_bytes().to_vec(),
    ];
    rt.launch(&Launch {
        program: p,
        kernel: "saxpy".into(),
        range: NdRange::d1(n).local([64, 1, 1]),
        args,
    })
    .unwrap();
    let out: Vec<f32> = rt.read(by).unwrap();
    for i in 0..n as usize {
        assert_eq!(out[i], 2.0 * x[i] + y[i], "element {i}");
    }
    assert!(
        rt.validation_messages().is_empty(),
        "{:?}",
        rt.validation_messages()
    );
}
