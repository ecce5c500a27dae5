// The plugin's own copy of NCCL's shared types against the installed nccl.h (built only where
// NCCL's header is found): result codes must agree, or NCCL would misread every return value.
#include <cstddef>
#include <cstdint>

namespace ours
{
#include "nccl/common.h"
} // namespace ours

#include <gtest/gtest.h>
#include <nccl.h>

namespace
{

TEST(TalbNcclAbi, ResultCodesMatchTheInstalledNccl)
{
    EXPECT_EQ(static_cast<int>(ours::ncclSuccess), static_cast<int>(ncclSuccess));
    EXPECT_EQ(static_cast<int>(ours::ncclUnhandledCudaError),
              static_cast<int>(ncclUnhandledCudaError));
    EXPECT_EQ(static_cast<int>(ours::ncclSystemError), static_cast<int>(ncclSystemError));
    EXPECT_EQ(static_cast<int>(ours::ncclInternalError), static_cast<int>(ncclInternalError));
    EXPECT_EQ(static_cast<int>(ours::ncclInvalidArgument), static_cast<int>(ncclInvalidArgument));
    EXPECT_EQ(static_cast<int>(ours::ncclInvalidUsage), static_cast<int>(ncclInvalidUsage));
    EXPECT_EQ(static_cast<int>(ours::ncclRemoteError), static_cast<int>(ncclRemoteError));
    EXPECT_EQ(static_cast<int>(ours::ncclInProgress), static_cast<int>(ncclInProgress));
    EXPECT_EQ(static_cast<int>(ours::ncclNumResults), static_cast<int>(ncclNumResults));
    EXPECT_EQ(sizeof(ours::ncclResult_t), sizeof(ncclResult_t));
}

TEST(TalbNcclAbi, InstalledNcclSpeaksTheDeclaredNetVersions)
{
    // NCCL 2.28 loads net plugins v6..v11; the declarations follow its release branch.
    EXPECT_GE(NCCL_VERSION_CODE, 22800);
}

} // namespace
