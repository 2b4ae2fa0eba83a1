//! chevron: the kernel-launch runtime library.
