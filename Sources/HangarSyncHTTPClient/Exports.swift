// `import HangarSyncHTTPClient` brings Hangar Sync with it.
@_exported public import HangarSync
