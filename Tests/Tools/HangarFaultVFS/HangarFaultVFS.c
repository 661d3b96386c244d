#include "HangarFaultVFS.h"

#include <sqlite3.h>
#include <stdatomic.h>
#include <string.h>

// A file of the fault VFS: the default VFS's file, right behind it in the same allocation.
typedef struct FaultFile {
    sqlite3_file base;
    sqlite3_file *real;
} FaultFile;

static sqlite3_vfs faultVFS;
static sqlite3_vfs *defaultVFS;
static atomic_int remaining = -1;
static atomic_int failures = 0;

void hangar_fault_vfs_fail_after(int allowed) {
    atomic_store(&failures, 0);
    atomic_store(&remaining, allowed);
}

int hangar_fault_vfs_failures(void) { return atomic_load(&failures); }

// Whether this write or sync fails: once armed, after the allowed ones.
static int shouldFail(void) {
    int left = atomic_load(&remaining);
    while (left >= 0) {
        if (left == 0) {
            atomic_fetch_add(&failures, 1);
            return 1;
        }
        if (atomic_compare_exchange_weak(&remaining, &left, left - 1)) return 0;
    }
    return 0;
}

#define REAL(file) (((FaultFile *)(file))->real)

static int faultClose(sqlite3_file *file) {
    int status = REAL(file)->pMethods ? REAL(file)->pMethods->xClose(REAL(file)) : SQLITE_OK;
    return status;
}
static int faultRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    return REAL(file)->pMethods->xRead(REAL(file), buffer, amount, offset);
}
static int faultWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    if (shouldFail()) return SQLITE_IOERR_WRITE;
    return REAL(file)->pMethods->xWrite(REAL(file), buffer, amount, offset);
}
static int faultTruncate(sqlite3_file *file, sqlite3_int64 size) {
    if (shouldFail()) return SQLITE_IOERR_TRUNCATE;
    return REAL(file)->pMethods->xTruncate(REAL(file), size);
}
static int faultSync(sqlite3_file *file, int flags) {
    if (shouldFail()) return SQLITE_IOERR_FSYNC;
    return REAL(file)->pMethods->xSync(REAL(file), flags);
}
static int faultFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    return REAL(file)->pMethods->xFileSize(REAL(file), size);
}
static int faultLock(sqlite3_file *file, int lock) { return REAL(file)->pMethods->xLock(REAL(file), lock); }
static int faultUnlock(sqlite3_file *file, int lock) { return REAL(file)->pMethods->xUnlock(REAL(file), lock); }
static int faultCheckReservedLock(sqlite3_file *file, int *out) {
    return REAL(file)->pMethods->xCheckReservedLock(REAL(file), out);
}
static int faultFileControl(sqlite3_file *file, int op, void *argument) {
    return REAL(file)->pMethods->xFileControl(REAL(file), op, argument);
}
static int faultSectorSize(sqlite3_file *file) { return REAL(file)->pMethods->xSectorSize(REAL(file)); }
static int faultDeviceCharacteristics(sqlite3_file *file) {
    return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file));
}
static int faultShmMap(sqlite3_file *file, int page, int size, int extend, void volatile **out) {
    return REAL(file)->pMethods->xShmMap(REAL(file), page, size, extend, out);
}
static int faultShmLock(sqlite3_file *file, int offset, int count, int flags) {
    return REAL(file)->pMethods->xShmLock(REAL(file), offset, count, flags);
}
static void faultShmBarrier(sqlite3_file *file) { REAL(file)->pMethods->xShmBarrier(REAL(file)); }
static int faultShmUnmap(sqlite3_file *file, int deleteFlag) {
    return REAL(file)->pMethods->xShmUnmap(REAL(file), deleteFlag);
}
static int faultFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    return REAL(file)->pMethods->xFetch(REAL(file), offset, amount, out);
}
static int faultUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    return REAL(file)->pMethods->xUnfetch(REAL(file), offset, pointer);
}

static const sqlite3_io_methods faultMethods = {
    3, faultClose, faultRead, faultWrite, faultTruncate, faultSync, faultFileSize, faultLock, faultUnlock,
    faultCheckReservedLock, faultFileControl, faultSectorSize, faultDeviceCharacteristics, faultShmMap,
    faultShmLock, faultShmBarrier, faultShmUnmap, faultFetch, faultUnfetch,
};

static int faultOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    FaultFile *fault = (FaultFile *)file;
    fault->real = (sqlite3_file *)&fault[1];
    int status = defaultVFS->xOpen(defaultVFS, name, fault->real, flags, outFlags);
    // On failure SQLite calls xClose only when pMethods is set: leave it unset.
    file->pMethods = status == SQLITE_OK ? &faultMethods : NULL;
    return status;
}

static int faultDelete(sqlite3_vfs *vfs, const char *name, int syncDir) {
    (void)vfs;
    return defaultVFS->xDelete(defaultVFS, name, syncDir);
}
static int faultAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return defaultVFS->xAccess(defaultVFS, name, flags, out);
}
static int faultFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return defaultVFS->xFullPathname(defaultVFS, name, size, out);
}
static void *faultDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return defaultVFS->xDlOpen(defaultVFS, name);
}
static void faultDlError(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    defaultVFS->xDlError(defaultVFS, size, out);
}
static void (*faultDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return defaultVFS->xDlSym(defaultVFS, handle, symbol);
}
static void faultDlClose(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    defaultVFS->xDlClose(defaultVFS, handle);
}
static int faultRandomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return defaultVFS->xRandomness(defaultVFS, size, out);
}
static int faultSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return defaultVFS->xSleep(defaultVFS, microseconds);
}
static int faultCurrentTime(sqlite3_vfs *vfs, double *out) {
    (void)vfs;
    return defaultVFS->xCurrentTime(defaultVFS, out);
}
static int faultGetLastError(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return defaultVFS->xGetLastError(defaultVFS, size, out);
}
static int faultCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return defaultVFS->xCurrentTimeInt64(defaultVFS, out);
}

int hangar_fault_vfs_register(void) {
    if (sqlite3_vfs_find("hangar-fault")) return SQLITE_OK;
    defaultVFS = sqlite3_vfs_find(NULL);
    if (!defaultVFS) return SQLITE_ERROR;
    memset(&faultVFS, 0, sizeof faultVFS);
    faultVFS.iVersion = 2;
    faultVFS.szOsFile = (int)sizeof(FaultFile) + defaultVFS->szOsFile;
    faultVFS.mxPathname = defaultVFS->mxPathname;
    faultVFS.zName = "hangar-fault";
    faultVFS.xOpen = faultOpen;
    faultVFS.xDelete = faultDelete;
    faultVFS.xAccess = faultAccess;
    faultVFS.xFullPathname = faultFullPathname;
    faultVFS.xDlOpen = faultDlOpen;
    faultVFS.xDlError = faultDlError;
    faultVFS.xDlSym = faultDlSym;
    faultVFS.xDlClose = faultDlClose;
    faultVFS.xRandomness = faultRandomness;
    faultVFS.xSleep = faultSleep;
    faultVFS.xCurrentTime = faultCurrentTime;
    faultVFS.xGetLastError = faultGetLastError;
    faultVFS.xCurrentTimeInt64 = faultCurrentTimeInt64;
    return sqlite3_vfs_register(&faultVFS, 0);
}
