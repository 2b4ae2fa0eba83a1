//! Bad input gives a located error naming the offending token and what was expected, never a
//! panic, a hang or an unbounded allocation.

use chevron_ptx::{parse, parse_bytes, ParseError};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

fn error_of(text: &str) -> ParseError {
    match parse(text) {
        Ok(m) => panic!("parsed but should not have: {m:?}"),
        Err(e) => e,
    }
}

#[test]
fn missing_semicolon_points_at_the_next_token() {
    let err = error_of(&format!(
        "{HEADER}.entry k()\n{{\n\tmov.u32 %r1, 1\n\tret;\n}}"
    ));
    assert_eq!((err.line, err.col), (7, 2));
    assert_eq!(err.found, "ret");
    assert_eq!(err.expected, "`,` or `;`");
    assert_eq!(
        err.to_string(),
        "line 7, column 2: unexpected token in instruction `mov` (found `ret`, expected `,` or `;`)"
    );
}

#[test]
fn messages_name_the_construct_being_parsed() {
    let err = error_of(&format!(
        "{HEADER}.visible .entry k(.param .u64 p, )\n{{ ret; }}"
    ));
    assert_eq!(
        err.message,
        "parameter lacks a state space or type in function `k`"
    );
    let err = error_of(&format!("{HEADER}.global .u32 counter = ;"));
    assert_eq!(
        err.message,
        "expected an initializer in declaration of `counter`"
    );
    let err = error_of(&format!("{HEADER}.target sm_80,"));
    assert_eq!(
        err.message,
        "unexpected end of input in directive `.target`"
    );
}

#[test]
fn unknown_characters_and_directives() {
    let err = error_of(&format!("{HEADER}.entry k() {{ mov.u32 %r1, #; }}"));
    assert_eq!(err.found, "#");
    assert!(err.message.contains("unrecognised"), "{err}");
    let err = error_of(&format!("{HEADER}.bogus .u32 x;"));
    assert_eq!(err.found, ".bogus");
    let err = error_of(&format!("{HEADER}.entry k() {{ .frob 1; }}"));
    assert_eq!(err.found, ".frob");
}

#[test]
fn truncated_inputs_report_end_of_input() {
    let full = format!("{HEADER}.visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<2>;\nld.param.u64 %rd1, [p];\nret;\n}}\n");
    for cut in [HEADER.len() + 10, HEADER.len() + 40, full.len() - 3] {
        let err = error_of(&full[..cut]);
        assert!(err.line >= 4, "{err}");
    }
    let err = error_of(&full[..full.len() - 2]);
    assert_eq!(err.found, "end of input");
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let depth = 100_000;
    let text = format!(
        "{HEADER}.entry k() {{{}{}}}",
        "{".repeat(depth),
        "}".repeat(depth)
    );
    let err = error_of(&text);
    assert!(err.message.contains("nesting"), "{err}");
    let init = format!(
        "{HEADER}.global .u32 x[1] = {}1{};",
        "{".repeat(depth),
        "}".repeat(depth)
    );
    assert!(error_of(&init).message.contains("nesting"));
    let vector = format!(
        "{HEADER}.entry k() {{ mov.b32 {}%r1{}, 1; }}",
        "{".repeat(depth),
        "}".repeat(depth)
    );
    assert!(error_of(&vector).message.contains("nesting"));
}

#[test]
fn absurd_sizes_are_refused() {
    let err = error_of(&format!("{HEADER}.global .b8 x[99999999999999];"));
    assert!(err.message.contains("array"), "{err}");
    let err = error_of(&format!(
        "{HEADER}.global .b8 x[1][2][3][4][5][6][7][8][9];"
    ));
    assert!(err.message.contains("dimensions"), "{err}");
    let err = error_of(&format!(
        "{HEADER}.entry k() {{ mov.u64 %r1, 99999999999999999999999; }}"
    ));
    assert!(err.message.contains("range"), "{err}");
}

#[test]
fn unterminated_strings_comments_and_sections() {
    assert!(parse(&format!("{HEADER}.pragma \"nounroll;\n")).is_err());
    assert!(parse(&format!("{HEADER}/* never closed")).is_err());
    let err = error_of(&format!("{HEADER}.section .debug_info {{ .b8 1"));
    assert!(err.message.contains("section"), "{err}");
}

#[test]
fn non_ascii_text_is_reported_whole() {
    let err = error_of(&format!("{HEADER}.entry k() {{ mov.u32 %r1, é; }}"));
    assert_eq!((err.line, err.col, err.found.as_str()), (4, 27, "é"));
    let err = error_of(&format!("{HEADER}漢字"));
    assert_eq!(err.found, "漢");
}

#[test]
fn invalid_utf8_is_an_error_with_position() {
    let mut bytes = HEADER.as_bytes().to_vec();
    bytes.extend_from_slice(b".entry k() { \xc3\x28 }");
    let err = parse_bytes(&bytes).unwrap_err();
    assert_eq!((err.line, err.col), (4, 14));
    assert_eq!(err.expected, "UTF-8 text");
}
