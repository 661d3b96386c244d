#ifndef HANGAR_FAULT_VFS_H
#define HANGAR_FAULT_VFS_H

/// Registers (once) the SQLite VFS "hangar-fault": SQLite's default VFS, except that once armed, every
/// xWrite, xTruncate and xSync after the next `allowed` ones fails with SQLITE_IOERR_WRITE / _FSYNC /
/// _TRUNCATE, as a failing disk would. For tests only. Returns SQLITE_OK or SQLite's error.
int hangar_fault_vfs_register(void);

/// Lets `allowed` more writes and syncs through, then fails every one; -1 disarms (all succeed).
void hangar_fault_vfs_fail_after(int allowed);

/// How many writes and syncs failed since the VFS was last armed.
int hangar_fault_vfs_failures(void);

#endif
