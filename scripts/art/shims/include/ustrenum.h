// art-lab stand-in for ICU's internal header common/ustrenum.h (not installed by libicu-dev):
// declares icu::UStringEnumeration, which libicuuc exports (U_COMMON_API).
#ifndef ART_LAB_USTRENUM_H
#define ART_LAB_USTRENUM_H
#include <unicode/strenum.h>
#include <unicode/uenum.h>
U_NAMESPACE_BEGIN
class U_COMMON_API UStringEnumeration : public StringEnumeration {
 public:
  static UStringEnumeration* U_EXPORT2 fromUEnumeration(UEnumeration* enumToAdopt, UErrorCode& status);
  UStringEnumeration(UEnumeration* uenum);
  virtual ~UStringEnumeration();
  virtual int32_t count(UErrorCode& status) const override;
  virtual const char* next(int32_t* resultLength, UErrorCode& status) override;
  virtual const UnicodeString* snext(UErrorCode& status) override;
  virtual void reset(UErrorCode& status) override;
  virtual UClassID getDynamicClassID() const override;
  static UClassID U_EXPORT2 getStaticClassID();
 private:
  UEnumeration* uenum;
};
U_NAMESPACE_END
#endif
