public import Hangar

/// The queries whose plans the engines' plan tests check (`SQLiteIndexQueryPlanTests`, `PostgresIndexQueryPlanTests`):
/// equality, prefix, range, open range and the whole index, in both orders, over the `fleet` collection's `hours` and
/// `baseName` indexes; each with the number of components a prefix names, if any.
public enum PlannedQueries {
    public static func queries() -> [(String, IndexQuery, Int?)] {
        var queries: [(String, IndexQuery, Int?)] = []
        for order in [IndexQuery.Order.ascending, .descending] {
            queries += [
                (
                    "equality \(order)",
                    IndexQuery(collection: "fleet", index: "hours", match: .equal(3), order: order), nil
                ),
                (
                    "prefix \(order)",
                    IndexQuery(collection: "fleet", index: "baseName", match: .prefix(["ESSB"]), order: order), 2
                ),
                (
                    "range \(order)",
                    IndexQuery(
                        collection: "fleet", index: "hours", match: .range(from: .included(1), to: .excluded(9)),
                        order: order),
                    nil
                ),
                (
                    "open range \(order)",
                    IndexQuery(
                        collection: "fleet", index: "hours", match: .range(from: .excluded(1), to: nil), order: order),
                    nil
                ),
                ("all \(order)", IndexQuery(collection: "fleet", index: "hours", order: order), nil),
            ]
        }
        return queries
    }
}
