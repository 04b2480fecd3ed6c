#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Making written bytes survive a crash or power loss, per platform. On Linux `fdatasync`
/// (file data) and `fsync` (a directory's entries) reach stable storage. On Darwin neither does:
/// `fsync` only hands the data to the drive, whose cache may reorder or drop it; Apple's
/// xnu bsd/sys/fcntl.h defines `F_FULLFSYNC` ("fsync + ask the drive to flush to the media"),
/// which some file systems (network, FAT) refuse, so `fsync` is the fallback there. Darwin's
/// headers do not declare `fdatasync`.
public enum DiskSync {
    /// Makes `fd`'s data durable; 0 on success, else -1 with `errno` set.
    public static func file(_ fd: Int32) -> Int32 {
        #if canImport(Glibc) || canImport(Musl)
        return fdatasync(fd)
        #elseif canImport(Darwin)
        return fullSync(fd)
        #endif
    }

    /// Makes the entries of the directory open on `fd` (a create or rename in it) durable.
    public static func directory(_ fd: Int32) -> Int32 {
        #if canImport(Glibc) || canImport(Musl)
        return fsync(fd)
        #elseif canImport(Darwin)
        return fullSync(fd)
        #endif
    }

    #if canImport(Darwin)
    private static func fullSync(_ fd: Int32) -> Int32 {
        if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
        return fsync(fd)
    }
    #endif
}
