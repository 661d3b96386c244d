// `import HangarSQLite` is the whole set-up of an app on SQLite: the engine-neutral API comes with it.
@_exported public import Hangar
