#![no_main]

use std::sync::OnceLock;

use kdelta::fuzzing::GitFixture;
use libfuzzer_sys::fuzz_target;

/// One repository per fuzzing process, in the system temp directory.
fn fixture() -> &'static GitFixture {
    static FIXTURE: OnceLock<GitFixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("kdelta-fuzz-git-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        GitFixture::create(&dir).expect("the git fixture can be created")
    })
}

fuzz_target!(|data: &[u8]| {
    let _ = fixture().run(data);
});
