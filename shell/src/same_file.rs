//! Whether two path arguments name one file: outputs must not overwrite inputs or each other.

use std::path::{Path, PathBuf};

use crate::target::parent_dir;

/// Two outputs of one command on one file, or an output on the file an input reads: one would
/// silently replace the other.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Overlap {
    /// Two outputs on one file.
    #[error("{first} and {second} name the same file (`{}`): one would replace the other", .path.display())]
    Outputs {
        /// The flag of the first output.
        first: String,
        /// The flag of the second.
        second: String,
        /// The second's path.
        path: PathBuf,
    },
    /// An output on the file an input reads.
    #[error(
        "{output} `{}` is the file {input} reads (`{}`): writing it would replace the input",
        .output_path.display(),
        .input_path.display()
    )]
    OutputOnInput {
        /// The output's flag.
        output: String,
        /// Its path.
        output_path: PathBuf,
        /// The input's flag.
        input: String,
        /// Its path.
        input_path: PathBuf,
    },
}

/// What a path names, to tell whether two arguments are the same file: an existing regular
/// file by device and inode (so hard links, symbolic links and `./x` versus `x` all match), a
/// path that does not exist yet by its directory's canonical path and its name. Devices and
/// FIFOs have none: writing `/dev/null` twice is fine.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    #[cfg(unix)]
    Inode(u64, u64),
    Path(PathBuf),
}

fn identity(path: &Path) -> Option<Identity> {
    match std::fs::metadata(path) {
        #[cfg(unix)]
        Ok(meta) if meta.is_file() => {
            use std::os::unix::fs::MetadataExt;
            Some(Identity::Inode(meta.dev(), meta.ino()))
        }
        Ok(meta) if meta.is_file() => std::fs::canonicalize(path).ok().map(Identity::Path),
        Ok(_) => None,
        Err(_) => {
            let dir = std::fs::canonicalize(parent_dir(path)).ok()?;
            Some(Identity::Path(dir.join(path.file_name()?)))
        }
    }
}

/// Refuses two `outputs` on one file, and an output on the file of one of the `inputs`, each
/// given as its flag and its path.
///
/// # Errors
/// The first [`Overlap`], naming both arguments.
pub fn refuse_overlaps(outputs: &[(&str, &Path)], inputs: &[(&str, &Path)]) -> Result<(), Overlap> {
    for (i, &(name, path)) in outputs.iter().enumerate() {
        let Some(id) = identity(path) else { continue };
        if let Some(&(other, _)) = outputs[..i]
            .iter()
            .find(|(_, other)| identity(other).as_ref() == Some(&id))
        {
            return Err(Overlap::Outputs {
                first: other.to_owned(),
                second: name.to_owned(),
                path: path.to_owned(),
            });
        }
        if let Some(&(input, input_path)) = inputs
            .iter()
            .find(|(_, input)| identity(input).as_ref() == Some(&id))
        {
            return Err(Overlap::OutputOnInput {
                output: name.to_owned(),
                output_path: path.to_owned(),
                input: input.to_owned(),
                input_path: input_path.to_owned(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_spellings_of_one_file_overlap() {
        let dir = std::env::temp_dir().join(format!("ntt-shell-{}-same", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("w.bin");
        std::fs::write(&input, b"words").unwrap();
        std::fs::hard_link(&input, dir.join("hard.bin")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&input, dir.join("sym.bin")).unwrap();
        for same in ["w.bin", "./w.bin", "hard.bin", "sym.bin"] {
            let out = dir.join(same);
            let err = refuse_overlaps(&[("--output", &out)], &[("--input", &input)]).expect_err(same);
            assert!(err.to_string().contains("is the file --input reads"), "{err}");
        }
        let new = dir.join("new.bin");
        let err = refuse_overlaps(
            &[
                ("--output", &new),
                ("--commitment", &dir.join(".").join("new.bin")),
            ],
            &[],
        )
        .expect_err("one new file twice");
        assert!(
            err.to_string()
                .contains("--output and --commitment name the same file"),
            "{err}"
        );
        assert!(refuse_overlaps(&[("--output", &new)], &[("--input", &input)]).is_ok());
        let null = Path::new("/dev/null");
        assert!(refuse_overlaps(&[("--output", null), ("--commitment", null)], &[]).is_ok());
        let _ = std::fs::remove_dir_all(dir);
    }
}
