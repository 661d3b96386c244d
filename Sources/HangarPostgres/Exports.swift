// `import HangarPostgres` is the whole set-up of an app on PostgreSQL: the engine-neutral API comes with it, as
// `import HangarSQLite` brings it.
@_exported public import Hangar
