//! Choosing a backend: names, detection, the `NTT_BACKEND` and `NTT_COLUMNS` overrides and their
//! errors.
//!
//! One test function mutates the environment, so it runs alone in this binary's process.

use ntt_kernels::{Backend, BackendError, BackendKind, ColumnStart};

#[test]
fn names_parse_and_print() {
    for kind in BackendKind::ALL {
        assert_eq!(kind.name().parse::<BackendKind>(), Ok(kind));
        assert_eq!(kind.to_string(), kind.name());
        assert_eq!(kind.name().to_uppercase().parse::<BackendKind>(), Ok(kind));
    }
    assert_eq!(
        "sse9".parse::<BackendKind>(),
        Err(BackendError::UnknownName("sse9".into()))
    );
}

#[test]
fn detection_is_consistent() {
    let all = Backend::available();
    assert_eq!(all[0], Backend::portable());
    assert!(all.contains(&Backend::detect()));
    for b in &all {
        assert_eq!(Backend::new(b.kind()), Ok(*b));
        assert!(b.vector_width() <= Backend::detect().vector_width());
    }
    for kind in BackendKind::ALL {
        if !all.iter().any(|b| b.kind() == kind) {
            assert_eq!(Backend::new(kind), Err(BackendError::Unsupported(kind)));
        }
    }
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        Backend::new(BackendKind::Neon),
        Err(BackendError::Unsupported(BackendKind::Neon))
    );
    #[cfg(target_arch = "aarch64")]
    assert_eq!(
        Backend::new(BackendKind::Avx512),
        Err(BackendError::Unsupported(BackendKind::Avx512))
    );
}

#[test]
fn env_override_selects_or_rejects() {
    // SAFETY: the only test in this process that touches the environment; the others do not read it.
    unsafe { std::env::remove_var("NTT_BACKEND") };
    assert_eq!(Backend::from_env(), Ok(Backend::detect()));
    for kind in BackendKind::ALL {
        // SAFETY: as above.
        unsafe { std::env::set_var("NTT_BACKEND", kind.name()) };
        match Backend::new(kind) {
            Ok(b) => assert_eq!(Backend::from_env(), Ok(b)),
            Err(e) => {
                assert_eq!(Backend::from_env(), Err(e.clone()));
                assert!(e.to_string().contains(kind.name()), "{e}");
            }
        }
    }
    // SAFETY: as above.
    unsafe { std::env::set_var("NTT_BACKEND", "quantum") };
    let err = Backend::from_env().expect_err("unknown name");
    assert_eq!(err, BackendError::UnknownName("quantum".into()));
    assert!(err.to_string().contains("quantum"));
    // SAFETY: as above.
    unsafe { std::env::set_var("NTT_BACKEND", "") };
    assert_eq!(Backend::from_env(), Ok(Backend::detect()));
    // SAFETY: as above.
    unsafe { std::env::remove_var("NTT_BACKEND") };

    // NTT_COLUMNS sets the column start of whichever backend is chosen; unset, AVX-512 (the one
    // backend with a partial first column) takes this CPU's.
    if let Ok(avx512) = Backend::new(BackendKind::Avx512) {
        assert_eq!(avx512.column_start(), ColumnStart::for_this_cpu());
    }
    for columns in ColumnStart::ALL {
        // SAFETY: as above.
        unsafe { std::env::set_var("NTT_COLUMNS", columns.name()) };
        assert_eq!(
            Backend::from_env(),
            Ok(Backend::detect().with_column_start(columns))
        );
    }
    // SAFETY: as above.
    unsafe { std::env::set_var("NTT_COLUMNS", "diagonal") };
    let err = Backend::from_env().expect_err("unknown column start");
    assert!(matches!(err, BackendError::UnknownColumnStart(_)), "{err:?}");
    assert!(err.to_string().contains("diagonal"), "{err}");
    // SAFETY: as above.
    unsafe { std::env::remove_var("NTT_COLUMNS") };
    assert_eq!(Backend::from_env(), Ok(Backend::detect()));

    // Bytes that are not UTF-8 name nothing: an error, not "unset".
    #[cfg(unix)]
    for var in ["NTT_BACKEND", "NTT_COLUMNS"] {
        use std::os::unix::ffi::OsStrExt;
        // SAFETY: as above.
        unsafe { std::env::set_var(var, std::ffi::OsStr::from_bytes(b"\xff")) };
        assert_eq!(Backend::from_env(), Err(BackendError::NotUtf8(var)));
        // SAFETY: as above.
        unsafe { std::env::remove_var(var) };
    }
}
