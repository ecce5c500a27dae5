#include "talb-core-attributes.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

namespace ns3
{

using talb::lb::SettingKind;

Ptr<AttributeValue>
TalbCoreAttributes::MakeValue(SettingKind kind, double value)
{
    switch (kind)
    {
    case SettingKind::kUnsigned:
        return Create<UintegerValue>(static_cast<uint64_t>(value));
    case SettingKind::kReal:
        return Create<DoubleValue>(value);
    case SettingKind::kTimeNs:
        return Create<TimeValue>(NanoSeconds(static_cast<int64_t>(value)));
    case SettingKind::kRateBps:
        return Create<DataRateValue>(DataRate(static_cast<uint64_t>(value)));
    case SettingKind::kEnum:
        return Create<EnumValue>(static_cast<int>(value));
    case SettingKind::kBool:
        return Create<BooleanValue>(value != 0);
    }
    return nullptr;
}

bool
TalbCoreAttributes::ReadValue(SettingKind kind, const AttributeValue& value, double* out)
{
    switch (kind)
    {
    case SettingKind::kUnsigned:
        if (const auto* v = dynamic_cast<const UintegerValue*>(&value))
        {
            *out = static_cast<double>(v->Get());
            return true;
        }
        return false;
    case SettingKind::kReal:
        if (const auto* v = dynamic_cast<const DoubleValue*>(&value))
        {
            *out = v->Get();
            return true;
        }
        return false;
    case SettingKind::kTimeNs:
        if (const auto* v = dynamic_cast<const TimeValue*>(&value))
        {
            *out = static_cast<double>(v->Get().GetNanoSeconds());
            return true;
        }
        return false;
    case SettingKind::kRateBps:
        if (const auto* v = dynamic_cast<const DataRateValue*>(&value))
        {
            *out = static_cast<double>(v->Get().GetBitRate());
            return true;
        }
        return false;
    case SettingKind::kEnum:
        if (const auto* v = dynamic_cast<const EnumValue*>(&value))
        {
            *out = v->Get();
            return true;
        }
        return false;
    case SettingKind::kBool:
        if (const auto* v = dynamic_cast<const BooleanValue*>(&value))
        {
            *out = v->Get() ? 1 : 0;
            return true;
        }
        return false;
    }
    return false;
}

bool
TalbCoreAttributes::WriteValue(SettingKind kind, double value, AttributeValue& out)
{
    switch (kind)
    {
    case SettingKind::kUnsigned:
        if (auto* v = dynamic_cast<UintegerValue*>(&out))
        {
            v->Set(static_cast<uint64_t>(value));
            return true;
        }
        return false;
    case SettingKind::kReal:
        if (auto* v = dynamic_cast<DoubleValue*>(&out))
        {
            v->Set(value);
            return true;
        }
        return false;
    case SettingKind::kTimeNs:
        if (auto* v = dynamic_cast<TimeValue*>(&out))
        {
            v->Set(NanoSeconds(static_cast<int64_t>(value)));
            return true;
        }
        return false;
    case SettingKind::kRateBps:
        if (auto* v = dynamic_cast<DataRateValue*>(&out))
        {
            v->Set(DataRate(static_cast<uint64_t>(value)));
            return true;
        }
        return false;
    case SettingKind::kEnum:
        if (auto* v = dynamic_cast<EnumValue*>(&out))
        {
            v->Set(static_cast<int>(value));
            return true;
        }
        return false;
    case SettingKind::kBool:
        if (auto* v = dynamic_cast<BooleanValue*>(&out))
        {
            v->Set(value != 0);
            return true;
        }
        return false;
    }
    return false;
}

namespace
{

/// \return the checker of an unsigned field of \p bytes bytes, within [min, max]
Ptr<const AttributeChecker>
UnsignedChecker(uint8_t bytes, double min, double max)
{
    const auto lo = static_cast<uint64_t>(min);
    const auto hi = static_cast<uint64_t>(max);
    switch (bytes)
    {
    case 1:
        return MakeUintegerChecker<uint8_t>(lo, hi);
    case 2:
        return MakeUintegerChecker<uint16_t>(lo, hi);
    case 4:
        return MakeUintegerChecker<uint32_t>(lo, hi);
    default:
        return MakeUintegerChecker<uint64_t>(lo, hi);
    }
}

/// \return the checker of a setting of \p kind within [min, max] (\p spellings: kEnum's)
Ptr<const AttributeChecker>
MakeChecker(SettingKind kind,
            uint8_t bytes,
            double min,
            double max,
            const talb::lb::SettingSpellings& spellings)
{
    switch (kind)
    {
    case SettingKind::kUnsigned:
        return UnsignedChecker(bytes, min, max);
    case SettingKind::kReal:
        return MakeDoubleChecker<double>(min, max);
    case SettingKind::kTimeNs:
        return MakeTimeChecker(NanoSeconds(static_cast<int64_t>(min)),
                               NanoSeconds(static_cast<int64_t>(max)));
    case SettingKind::kRateBps:
        return MakeDataRateChecker();
    case SettingKind::kEnum: {
        Ptr<EnumChecker> checker = Create<EnumChecker>();
        for (uint32_t i = 0; i < spellings.count; ++i)
        {
            checker->Add(spellings.values[i].value, spellings.values[i].attribute);
        }
        return checker;
    }
    case SettingKind::kBool:
        return MakeBooleanChecker();
    }
    return nullptr;
}

} // namespace

void
TalbCoreAttributes::AddOne(TypeId tid,
                           const char* name,
                           const char* help,
                           SettingKind kind,
                           uint8_t bytes,
                           double min,
                           double max,
                           const talb::lb::SettingSpellings& spellings,
                           double initial,
                           Ptr<const AttributeAccessor> accessor)
{
    // The help names other settings as the attributes they are.
    std::string text = talb::lb::ExpandHelp(help, [](const std::string& other) { return other; });
    tid.AddAttribute(name,
                     text,
                     *MakeValue(kind, initial),
                     accessor,
                     MakeChecker(kind, bytes, min, max, spellings));
}

} // namespace ns3
