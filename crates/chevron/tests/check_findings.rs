//! The sanitizer through the Rust API: checks configured in the process, each finding a typed
//! value naming the check, kernel, thread, address and source line. One test: the checks are
//! process-wide.

mod cpu_support;

use chevron::check::{self, CheckConfig};
use cpu_support::{device, kernel, launch, Arg, OUT_OF_BOUNDS};

/// Reads `in[tid]` into `out[tid]`, with line information (`read.cu:7:5` for the load).
const READ: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry _Z4readPKiPi(.param .u64 in, .param .u64 out)
{
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<6>;
	.loc 1 5 0
	ld.param.u64 	%rd1, [in];
	ld.param.u64 	%rd2, [out];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd1, %rd3;
	.loc 1 7 5
	ld.global.u32 	%r2, [%rd4];
	add.s64 	%rd5, %rd2, %rd3;
	st.global.u32 	[%rd5], %r2;
	ret;
}
	.file 1 "/src/read.cu"
"#;

#[test]
fn findings_are_typed_values_and_can_be_taken() {
    let checks = CheckConfig::parse("memcheck,initcheck").unwrap();
    check::configure(checks).unwrap();
    assert!(check::configure(CheckConfig::default()).is_err());
    let device = device();

    let oob = kernel(&device, OUT_OF_BOUNDS, "oob_store");
    let faulted = device.create_stream().unwrap();
    let small = device.alloc(16).unwrap();
    launch(&faulted, &oob, 1, 1, &[Arg::U64(small)]).unwrap();
    assert!(faulted.synchronize().is_err());

    let read = kernel(&device, READ, "_Z4readPKiPi");
    let stream = device.create_stream().unwrap();
    let input = device.alloc(64 * 4).unwrap();
    let output = device.alloc(64 * 4).unwrap();
    stream.memset(input, 1, 4, 32).unwrap();
    launch(&stream, &read, 1, 64, &[Arg::U64(input), Arg::U64(output)]).unwrap();
    assert!(stream.synchronize().is_err());

    let findings = check::take_findings();
    assert_eq!(findings.len(), 2, "{findings:#?}");
    let memcheck = &findings[0];
    assert_eq!(
        (memcheck.check, memcheck.kind.as_str()),
        ("memcheck", "out-of-bounds access")
    );
    assert_eq!(memcheck.kernel.as_deref(), Some("oob_store"));
    assert_eq!(memcheck.thread, Some([0, 0, 0]));
    assert_eq!(memcheck.address, Some(small + 4096));
    assert!(memcheck.source.is_none());
    let initcheck = &findings[1];
    assert_eq!(
        (initcheck.check, initcheck.kind.as_str()),
        ("initcheck", "uninitialized read")
    );
    assert_eq!(initcheck.kernel.as_deref(), Some("read(int const*, int*)"));
    // The memset wrote the first 32 elements: thread 32 reads the first unwritten one.
    assert_eq!(initcheck.thread, Some([32, 0, 0]));
    assert_eq!(initcheck.address, Some(input + 128));
    let source = initcheck.source.as_ref().unwrap();
    assert_eq!(
        (source.to_string(), &*source.file),
        ("read.cu:7:5".into(), "/src/read.cu")
    );
    assert!(
        initcheck.to_string().contains("at read.cu:7:5"),
        "{initcheck}"
    );
    // Taken: nothing is left for the exit summary, so the process exits as it would.
    assert!(check::findings().is_empty());
}
