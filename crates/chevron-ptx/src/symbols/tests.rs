//! Unit tests of the symbol table over hand-built IR.

use super::test_ir::*;
use super::*;
use crate::ir::{FunctionKind::*, KnownOpcode, Linkage::*, ScalarType::*, StateSpace, Statement};

fn sample() -> ir::Module {
    module(vec![
        function(Func, Internal, "_Z6helperf", vec![param(F32, "x")], None),
        global(Visible, StateSpace::Global, F32, "table", 64),
        function(
            Entry,
            Visible,
            "_Z5saxpyfPKfPf",
            vec![param(F32, "a"), param(U64, "x"), param(U64, "y")],
            Some(vec![
                call(symbol("_Z6helperf")),
                call(symbol("_Z6helperf")),
                call(symbol("vprintf")),
            ]),
        ),
        function(
            Func,
            Internal,
            "_Z6helperf",
            vec![param(F32, "x")],
            Some(vec![]),
        ),
        function(
            Entry,
            Visible,
            "_Z10block_scanIiLi128EEvPKiPii",
            vec![],
            Some(vec![]),
        ),
        function(
            Entry,
            Visible,
            "_Z10block_scanIfLi256EEvPKfPfi",
            vec![],
            Some(vec![]),
        ),
        function(Entry, Visible, "plain_c_kernel", vec![], Some(vec![])),
    ])
}

#[test]
fn declaration_and_definition_merge_in_source_order() {
    let table = SymbolTable::from_module(&sample());
    let names: Vec<&str> = table.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names[..3], ["_Z6helperf", "table", "_Z5saxpyfPKfPf"]);
    assert_eq!(names.len(), 6);
    let helper = table.get("_Z6helperf").unwrap();
    assert!(helper.defined);
    assert_eq!(helper.kind, SymbolKind::DeviceFunction);
    assert_eq!(helper.demangled.as_deref(), Some("helper(float)"));
    assert_eq!(table.kernels().count(), 4);
    let table_var = table.get("table").unwrap();
    assert_eq!(
        table_var.kind,
        SymbolKind::Global {
            space: StateSpace::Global,
            size: 256,
            align: 4
        }
    );
}

#[test]
fn kernel_layout_and_callees() {
    let table = SymbolTable::from_module(&sample());
    let saxpy = table.get("_Z5saxpyfPKfPf").unwrap();
    let offsets: Vec<(u32, u32)> = saxpy.params.iter().map(|p| (p.offset, p.size)).collect();
    assert_eq!(offsets, [(0, 4), (8, 8), (16, 8)]);
    assert_eq!(saxpy.param_buffer_size(), 24);
    assert_eq!(saxpy.callees, ["_Z6helperf", "vprintf"]);
}

#[test]
fn find_by_signature_name_and_template() {
    let table = SymbolTable::from_module(&sample());
    let by = |q: &str| table.find(q).map(|s| s.name.as_str());
    assert_eq!(by("_Z5saxpyfPKfPf"), Ok("_Z5saxpyfPKfPf"));
    assert_eq!(by("saxpy"), Ok("_Z5saxpyfPKfPf"));
    assert_eq!(
        by("saxpy(float,const float *, float*)"),
        Ok("_Z5saxpyfPKfPf")
    );
    assert_eq!(
        by("void saxpy(float, float const*, float*)"),
        Ok("_Z5saxpyfPKfPf")
    );
    assert_eq!(
        by("block_scan<int, 128>(int const*, int*, int)"),
        Ok("_Z10block_scanIiLi128EEvPKiPii")
    );
    assert_eq!(
        by("block_scan<float,256>"),
        Ok("_Z10block_scanIfLi256EEvPKfPfi")
    );
    assert_eq!(by("plain_c_kernel"), Ok("plain_c_kernel"));
}

#[test]
fn ambiguous_and_missing_names_list_candidates() {
    let table = SymbolTable::from_module(&sample());
    let err = table.find("block_scan").unwrap_err();
    assert!(matches!(err, LookupError::Ambiguous { .. }));
    assert_eq!(
        err.candidates(),
        [
            "block_scan<int, 128>(int const*, int*, int)",
            "block_scan<float, 256>(float const*, float*, int)"
        ]
    );
    assert!(err.to_string().contains("block_scan<int, 128>"));

    let err = table.find("saxpi").unwrap_err();
    assert!(matches!(err, LookupError::NotFound { .. }));
    assert_eq!(err.candidates(), ["saxpy(float, float const*, float*)"]);
    assert!(table.find("saxpy(double)").is_err());
}

#[test]
fn call_graph_indirect_calls_and_address_taken() {
    let m = module(vec![
        function(Func, Internal, "a", vec![], Some(vec![call(symbol("b"))])),
        function(Func, Internal, "b", vec![], Some(vec![])),
        function(Func, Internal, "c", vec![], Some(vec![])),
        function(
            Entry,
            Visible,
            "k",
            vec![],
            Some(vec![Statement::Block(vec![
                instruction(KnownOpcode::Mov, vec![register("%rd1"), symbol("a")]),
                call(register("%rd1")),
            ])]),
        ),
    ]);
    let graph = CallGraph::from_module(&m);
    let k = graph.calls("k").unwrap();
    assert!(k.indirect);
    assert!(k.direct.is_empty());
    assert_eq!(graph.address_taken.iter().collect::<Vec<_>>(), ["a"]);
    assert_eq!(
        graph.reachable_from("k").into_iter().collect::<Vec<_>>(),
        ["a", "b", "k"]
    );
    assert!(!graph.calls("a").unwrap().indirect);
}

#[test]
fn kernel_lookup_ignores_functions_of_the_same_name() {
    let m = module(vec![
        function(
            Func,
            Internal,
            "_Z5scalef",
            vec![param(F32, "x")],
            Some(vec![]),
        ),
        function(
            Entry,
            Visible,
            "_Z5scalePf",
            vec![param(U64, "p")],
            Some(vec![]),
        ),
        global(Visible, StateSpace::Global, F32, "_ZN2ns5scaleE", 1),
    ]);
    let table = SymbolTable::from_module(&m);
    assert!(matches!(
        table.find("scale"),
        Err(LookupError::Ambiguous { ref candidates, .. }) if candidates.len() == 2
    ));
    assert_eq!(table.find_kernel("scale").unwrap().name, "_Z5scalePf");
    assert_eq!(
        table
            .find_where("scale", |s| matches!(s.kind, SymbolKind::Global { .. }))
            .unwrap()
            .name,
        "_ZN2ns5scaleE"
    );
    let err = table.find_kernel("scale(float)").unwrap_err();
    assert_eq!(err.candidates(), ["scale(float*)"]);
}
