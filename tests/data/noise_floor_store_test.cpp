// The machine's run-to-run noise floors (migration 4): stored, the newest per metric read back, and
// a database of the previous release (read-only, schema 1) reads as having none; code layout floors
// in the same table, read apart from them.

#include <gtest/gtest.h>

#include <filesystem>

#include "data/noise_floor_store.h"
#include "data/schema.h"
#include "tests/data/data_test_support.h"

namespace nf::data {
namespace {

using test::TempDir;

StoredNoiseFloor floorOf(const std::string& metric, double cv, const std::string& workload = "spin")
{
    return {.id = 0,
            .createdAt = {},
            .label = "calibrate-runs",
            .workload = workload,
            .host = "h",
            .metric = metric,
            .runs = 3,
            .boots = 2,
            .betweenCv = cv,
            .withinCv = 0.003,
            .runIds = "1,2,3"};
}

TEST(NoiseFloorStore, TheNewestFloorOfEachMetricIsReadBack)
{
    TempDir dir;
    auto db = openStore(dir.file("f.db"), Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().message;
    ASSERT_TRUE(storeNoiseFloor(*db, floorOf("tsc_per_op", 0.02)).ok());
    ASSERT_TRUE(storeNoiseFloor(*db, floorOf("tsc_per_op", 0.015)).ok());
    ASSERT_TRUE(storeNoiseFloor(*db, floorOf("ops_per_sec", 0.01)).ok());
    ASSERT_TRUE(storeNoiseFloor(*db, floorOf("tsc_per_op", 0.5, "udp-rx")).ok());
    auto floors = latestNoiseFloors(*db, "spin", "h");
    ASSERT_TRUE(floors.ok()) << floors.error().message;
    ASSERT_EQ(floors->size(), 2U);
    EXPECT_EQ((*floors)[0].metric, "ops_per_sec");
    EXPECT_EQ((*floors)[1].metric, "tsc_per_op");
    EXPECT_DOUBLE_EQ((*floors)[1].betweenCv, 0.015);
    EXPECT_EQ((*floors)[1].boots, 2);
    EXPECT_FALSE((*floors)[1].createdAt.empty());
    EXPECT_TRUE(latestNoiseFloors(*db, "spin", "other-host")->empty());
}

TEST(NoiseFloorStore, LayoutFloorsShareTheTableAndAreReadApartFromRunFloors)
{
    TempDir dir;
    auto db = openStore(dir.file("f.db"), Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok()) << db.error().message;
    ASSERT_TRUE(storeNoiseFloor(*db, floorOf("tsc_per_op", 0.02)).ok());
    const LayoutFloorRecord layout{.baseline = "vanilla",
                                   .placebo = "vanilla-rebuilt",
                                   .workload = "spin",
                                   .host = "h",
                                   .metric = "tsc_per_op",
                                   .runs = 4,
                                   .boots = 2,
                                   .spreadCv = 0.018,
                                   .runIds = "1,2,3,4"};
    ASSERT_TRUE(storeLayoutFloor(*db, layout).ok());
    auto runFloors = latestNoiseFloors(*db, "spin", "h");
    ASSERT_TRUE(runFloors.ok()) << runFloors.error().message;
    ASSERT_EQ(runFloors->size(), 1U);
    EXPECT_DOUBLE_EQ((*runFloors)[0].betweenCv, 0.02);
    EXPECT_EQ(calibratedFloors(*db, "spin", "h")->size(), 1U);
    auto layoutFloors = calibratedLayoutFloors(*db, "spin", "h");
    ASSERT_TRUE(layoutFloors.ok()) << layoutFloors.error().message;
    ASSERT_EQ(layoutFloors->size(), 1U);
    const auto& f = layoutFloors->at("tsc_per_op");
    EXPECT_DOUBLE_EQ(f.spreadCv, 0.018);
    EXPECT_EQ(f.df, 1);
    EXPECT_EQ(f.builds, 2U);
    EXPECT_NE(f.source.find("vanilla against its rebuild vanilla-rebuilt"), std::string::npos) << f.source;
    EXPECT_TRUE(calibratedLayoutFloors(*db, "spin", "other-host")->empty());
}

TEST(NoiseFloorStore, AFloorOfOneRunIsRefused)
{
    TempDir dir;
    auto db = openStore(dir.file("f.db"), Database::Mode::ReadWrite);
    ASSERT_TRUE(db.ok());
    auto one = floorOf("tsc_per_op", 0.02);
    one.runs = 1;
    EXPECT_FALSE(storeNoiseFloor(*db, one).ok());
}

TEST(NoiseFloorStore, ThePreviousReleaseReadOnlyHasNoFloors)
{
    TempDir dir;
    const std::string path = dir.file("v1.db");
    std::filesystem::copy_file(NF_FIXTURE_DB, path);
    auto db = openStore(path, Database::Mode::ReadOnly);
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto floors = latestNoiseFloors(*db, "spin", "");
    ASSERT_TRUE(floors.ok()) << floors.error().message;
    EXPECT_TRUE(floors->empty());
}

}  // namespace
}  // namespace nf::data
