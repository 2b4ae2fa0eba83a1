//! The launch-configuration slot the compilers' host code uses: pushes and pops pair up in
//! LIFO order per thread (a launch inside another launch's arguments), a pop without a push is
//! `cudaErrorMissingConfiguration`, and pushing past the nesting limit makes the compiler's
//! code skip the launch.

use std::ffi::c_void;

use cudart::abi::Dim3;
use cudart::compiler::{__cudaPopCallConfiguration, __cudaPushCallConfiguration};
use cudart::errors::{take_last_error, MISSING_CONFIGURATION, SUCCESS};

fn dim(x: u32) -> Dim3 {
    Dim3 { x, y: 1, z: 1 }
}

fn pop() -> (i32, Dim3, Dim3, usize, *mut c_void) {
    let (mut grid, mut block, mut shared) = (dim(0), dim(0), 0usize);
    let mut stream: *mut c_void = std::ptr::null_mut();
    // SAFETY: all four point to live locals.
    let code = unsafe {
        __cudaPopCallConfiguration(
            &mut grid,
            &mut block,
            &mut shared,
            &mut stream as *mut *mut c_void as *mut c_void,
        )
    };
    (code, grid, block, shared, stream)
}

#[test]
fn pushes_and_pops_pair_up_last_in_first_out() {
    let stream = 0x40 as *mut c_void;
    assert_eq!(
        __cudaPushCallConfiguration(dim(4), dim(128), 256, stream),
        0
    );
    assert_eq!(
        __cudaPushCallConfiguration(dim(1), dim(32), 0, std::ptr::null_mut()),
        0
    );
    let inner = pop();
    assert_eq!(
        (inner.0, inner.1, inner.2, inner.3),
        (SUCCESS, dim(1), dim(32), 0)
    );
    let outer = pop();
    assert_eq!(
        (outer.0, outer.1, outer.2, outer.3),
        (SUCCESS, dim(4), dim(128), 256)
    );
    assert_eq!(outer.4, stream);
}

#[test]
fn a_pop_without_a_push_is_a_missing_configuration() {
    assert_eq!(pop().0, MISSING_CONFIGURATION);
    assert_eq!(take_last_error(), MISSING_CONFIGURATION);
    assert_eq!(
        take_last_error(),
        SUCCESS,
        "the last error is cleared once read"
    );
}

#[test]
fn pushing_past_the_nesting_limit_skips_the_launch() {
    let pushed: Vec<u32> = (0..9)
        .map(|i| __cudaPushCallConfiguration(dim(i), dim(1), 0, std::ptr::null_mut()))
        .collect();
    assert_eq!(&pushed[..8], &[0; 8]);
    assert_ne!(pushed[8], 0, "the ninth push is refused");
    for expected in (0..8).rev() {
        assert_eq!(pop().1, dim(expected));
    }
    assert_eq!(pop().0, MISSING_CONFIGURATION);
}
